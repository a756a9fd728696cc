# A login journey on cookies alone, against the built-in target (`tressi
# target`): each session logs in, the server answers with a session cookie
# (Set-Cookie: sid=...; Path=/; HttpOnly), and the session's later requests
# send it back from the session's own cookie jar. Nothing is captured by
# hand: scenarios keep a jar per session by default. The target counts the
# distinct session cookies it sees under "cookies" in /__stats.
#
#   tressi apply examples/cookies.hcl --var rate=1000 --var duration=10s

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "rate" {
  type    = number
  default = 20 # sessions started per second
}
variable "duration" {
  type    = string
  default = "10s"
}
variable "calls" {
  type    = number
  default = 3 # authenticated calls per session
}
variable "connections" {
  type    = number
  default = 256
}
variable "timeout" {
  type    = string
  default = "2s"
}

target "local" {
  url         = var.base_url
  connections = var.connections
  timeout     = var.timeout
}

scenario "cookie_login" {
  cookies = "session" # the default for scenarios, said here for the reader
  step "login" {
    method = "POST"
    path   = "/cookie/login"
  }
  step "me" {
    path   = "/cookie/me" # 401 without the session's cookie
    repeat = var.calls
    expect {
      status = [200]
    }
  }
}

load {
  stage {
    duration = var.duration
    rate     = var.rate
  }
}

thresholds {
  error_rate = 0.001
}
