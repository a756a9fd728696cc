# Imported by tressi from a curl command: 1 request.
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "localhost_8080_url" {
  description = "the recorded host localhost:8080"
  default     = "http://localhost:8080"
}

variable "username" {
  description = "recorded curl -u user name; its value is left out: pass it with --var username=... or TRESSI_VAR_username"
  sensitive   = true
  default     = ""
}

variable "password" {
  description = "recorded curl -u password; its value is left out: pass it with --var password=... or TRESSI_VAR_password"
  sensitive   = true
  default     = ""
}

variable "body_token" {
  description = "recorded body field token; its value is left out: pass it with --var body_token=... or TRESSI_VAR_body_token"
  sensitive   = true
  default     = ""
}

target "localhost_8080" {
  url = var.localhost_8080_url
}

endpoint "post_search" {
  method     = "POST"
  path       = "/search"
  basic_auth = { username = var.username, password = var.password }
  headers = {
    "Content-Type" = "application/x-www-form-urlencoded"
  }
  body = "q=a b&token=${urlencode(var.body_token)}&msg=1%262"
}

load {
  stage {
    duration = "1s"
    rate     = 5
  }
}
