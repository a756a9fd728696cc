# Imported by tressi from chain.har (hand 1): 4 requests in 1 scenarios (one per page).
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "host_127_0_0_1_8080_url" {
  description = "the recorded host 127.0.0.1:8080"
  default     = "http://127.0.0.1:8080"
}

variable "username" {
  description = "recorded Authorization: Basic user name; its value is left out: pass it with --var username=... or TRESSI_VAR_username"
  sensitive   = true
  default     = ""
}

variable "password" {
  description = "recorded Authorization: Basic password; its value is left out: pass it with --var password=... or TRESSI_VAR_password"
  sensitive   = true
  default     = ""
}

variable "cookie" {
  description = "recorded header Cookie; its value is left out: pass it with --var cookie=... or TRESSI_VAR_cookie"
  sensitive   = true
  default     = ""
}

target "host_127_0_0_1_8080" {
  url = var.host_127_0_0_1_8080_url
}

scenario "sign_in_and_browse" {
  # a browser's session: its own connections
  connection = "session"
  step "01_post_login" {
    method = "POST"
    path   = "/cookie/login"
    headers = {
      "Content-Type" = "application/x-www-form-urlencoded"
    }
    redirects = 1
    body      = "user=ann"
    think     = "950ms"
  }
  step "02_get_echo" {
    path       = "/echo"
    basic_auth = { username = var.username, password = var.password }
    headers = {
      "Cookie" = var.cookie
    }
    think = "980ms"
  }
  step "03_get_2" {
    path      = "/redirect/2"
    redirects = 2
    think     = "920ms"
  }
  step "04_get_1" {
    path      = "/redirect/1?to=/status/404"
    redirects = 1
    expect {
      status = [404]
    }
  }
}

load {
  stage {
    duration = "10s"
    rate     = 1
  }
}
