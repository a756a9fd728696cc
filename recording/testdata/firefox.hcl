# Imported by tressi from firefox.har (Firefox 133.0): 6 requests in 3 scenarios (one per page).
# Hosts are variables (--var NAME_url=http://...); values that looked secret are sensitive
# variables left empty: pass them with --var NAME=... or TRESSI_VAR_NAME.

variable "host_127_0_0_1_8080_url" {
  description = "the recorded host 127.0.0.1:8080"
  default     = "http://127.0.0.1:8080"
}

variable "query_api_key" {
  description = "recorded query field api_key; its value is left out: pass it with --var query_api_key=... or TRESSI_VAR_query_api_key"
  sensitive   = true
  default     = ""
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

variable "authorization" {
  description = "recorded header Authorization; its value is left out: pass it with --var authorization=... or TRESSI_VAR_authorization"
  sensitive   = true
  default     = ""
}

variable "body_otp" {
  description = "recorded body field otp; its value is left out: pass it with --var body_otp=... or TRESSI_VAR_body_otp"
  sensitive   = true
  default     = ""
}

target "host_127_0_0_1_8080" {
  url = var.host_127_0_0_1_8080_url
}

scenario "shop_sign_in" {
  # a browser's session: its own connections
  connection = "session"
  step "01_get_echo" {
    path = "/echo?page=signin&api_key=${urlencode(var.query_api_key)}"
    headers = {
      "User-Agent"      = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
      "Accept"          = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
      "Accept-Language" = "en-US,en;q=0.5"
      "Cookie"          = var.cookie
    }
    think = "1.5s"
  }
  step "02_post_login" {
    method = "POST"
    path   = "/login"
    headers = {
      "Content-Type" = "application/json"
      "Origin"       = "http://127.0.0.1:8080"
    }
    body  = "{\"user\":\"bob\",\"password\":${jsonencode(var.body_password)},\"n\":1}"
    think = "500ms"
  }
  step "03_get_me" {
    path = "/me"
    headers = {
      "Authorization" = var.authorization
    }
  }
}

scenario "shop_upload" {
  # a browser's session: its own connections
  connection = "session"
  step "01_post_upload" {
    method = "POST"
    path   = "/upload"
    headers = {
      "Content-Type" = "application/x-www-form-urlencoded"
    }
    body  = "q=big+cats&otp=${urlencode(var.body_otp)}&note=%24%7Bnot%7D"
    think = "397ms"
  }
  step "02_get_404" {
    path = "/status/404"
    expect {
      status = [404]
    }
  }
}

scenario "requests" {
  # a browser's session: its own connections
  connection = "session"
  step "01_get_64" {
    path = "/bytes/64?x=%22$${y}%22"
  }
}

load {
  stage {
    duration = "10s"
    rate     = 1
  }
}
