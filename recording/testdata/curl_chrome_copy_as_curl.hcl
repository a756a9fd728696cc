# Imported by tressi from a curl command: 1 request.
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "host_127_0_0_1_8080_url" {
  description = "the recorded host 127.0.0.1:8080"
  default     = "http://127.0.0.1:8080"
}

variable "cookie" {
  description = "recorded header Cookie; its value is left out: pass it with --var cookie=... or TRESSI_VAR_cookie"
  sensitive   = true
  default     = ""
}

variable "body_password" {
  description = "recorded body field password; its value is left out: pass it with --var body_password=... or TRESSI_VAR_body_password"
  sensitive   = true
  default     = ""
}

target "host_127_0_0_1_8080" {
  url = var.host_127_0_0_1_8080_url
}

endpoint "post_login" {
  method = "POST"
  path   = "/login"
  headers = {
    "Accept"       = "*/*"
    "Content-Type" = "application/json"
    "Cookie"       = var.cookie
    "Origin"       = "http://127.0.0.1:8080"
  }
  body = "{\"user\":\"ann\",\"password\":${jsonencode(var.body_password)}}"
}

load {
  stage {
    duration = "1s"
    rate     = 5
  }
}
