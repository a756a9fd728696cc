# Scenario for bench/run (e): log in, then 10 × GET /me with the captured
# token, no think time, pooled connections, sessions arriving at an open
# rate. rate is requests per second: sessions arrive at rate / 11.
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "rate" {
  type    = number
  default = 20000
}
variable "duration" {
  type    = string
  default = "5s"
}
variable "connections" {
  type    = number
  default = 50
}

target "bench" {
  url         = var.base_url
  connections = var.connections
  timeout     = "5s"
}

scenario "journey" {
  step "login" {
    method  = "POST"
    path    = "/login"
    body    = jsonencode({ user = "bench", password = "x" })
    capture = { token = json("token") }
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = 10
  }
}

load {
  model = "open"
  stage {
    duration = var.duration
    rate     = var.rate / 11
  }
}
