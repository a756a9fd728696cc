# Imported by tressi from a curl command: 1 request.
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "api_example_url" {
  description = "the recorded host api.example"
  default     = "https://api.example"
}

target "api_example" {
  url = var.api_example_url
}

endpoint "get_items" {
  path = "/items?page=2"
  headers = {
    "Accept" = "application/json"
  }
}

load {
  stage {
    duration = "1s"
    rate     = 5
  }
}
