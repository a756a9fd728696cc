# Imported by tressi from a curl command: 1 request.
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "host_127_0_0_1_8080_url" {
  description = "the recorded host 127.0.0.1:8080"
  default     = "http://127.0.0.1:8080"
}

target "host_127_0_0_1_8080" {
  url = var.host_127_0_0_1_8080_url
}

endpoint "post_echo" {
  method = "POST"
  path   = "/echo"
  headers = {
    "Content-Type" = "application/json"
    "Accept"       = "application/json"
  }
  redirects = 20
  body      = "{\"k\":\"$${v}\"}"
}

load {
  stage {
    duration = "1s"
    rate     = 5
  }
}
