# Imported by tressi from a curl command: 1 request.
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "host_127_0_0_1_8080_url" {
  description = "the recorded host 127.0.0.1:8080"
  default     = "http://127.0.0.1:8080"
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

target "host_127_0_0_1_8080" {
  url = var.host_127_0_0_1_8080_url
}

endpoint "get_pw" {
  path        = "/digest-auth/auth/bob/pw"
  digest_auth = { username = var.username, password = var.password }
  redirects   = 3
}

load {
  stage {
    duration = "1s"
    rate     = 5
  }
}
