# WebSocket echo for bench/ws: `connections` sessions, each sending a text
# frame at a fixed pace (wait = false: every frame is due think after the
# one before, whatever the answers do) and awaiting its echo, so the run
# offers `rate` messages per second in all once the sessions are connected.
# The scripts set base_url, rate, duration (whole seconds) and connections.
variable "base_url" {
  type    = string
  default = "ws://127.0.0.1:8080"
}
variable "rate" {
  type    = number
  default = 20000
}
variable "duration" {
  type    = number
  default = 5
}
variable "connections" {
  type    = number
  default = 100
}

target "bench" {
  url         = var.base_url
  connections = var.connections
  timeout     = "5s"
}

scenario "echo" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "msg" {
    send   = "m"
    repeat = var.rate / var.connections * var.duration
    think  = "${floor(1000000 * var.connections / var.rate)}us"
    wait   = false
    await {} # the next frame: each echo answers the oldest outstanding send
  }
  step "close" {
    close = 1000
  }
}

load {
  model = "open"
  stage {
    duration = "100ms" # every session connects at the start
    rate     = var.connections * 10
  }
}
