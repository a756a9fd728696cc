# A login journey against the built-in target (`tressi target`): each
# session logs in as the next account of users.csv, captures the token from
# the JSON answer and makes authenticated calls with it, pausing between
# them as a person would.
#
#   tressi apply examples/login.hcl --var rate=20 --var duration=30s

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "rate" {
  type    = number
  default = 5 # sessions started per second
}
variable "duration" {
  type    = string
  default = "10s"
}
variable "calls" {
  type    = number
  default = 5 # authenticated calls per session
}
variable "think" {
  type    = string
  default = "100ms"
}

target "local" {
  url         = var.base_url
  connections = 64
  timeout     = "2s"
}

data "users" {
  csv   = "users.csv"
  order = "sequential" # session k logs in as row k mod 8
}

scenario "login_and_browse" {
  step "login" {
    method  = "POST"
    path    = "/login"
    headers = { "Content-Type" = "application/json" }
    body    = jsonencode({ user = row.username, password = row.password })
    capture = { token = json("token") }
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = var.calls
    think   = var.think
  }
}

load {
  model = "open"
  seed  = 1
  stage {
    duration = var.duration
    rate     = var.rate
  }
}

thresholds {
  error_rate = 0.01
}
