# bench/grpc, bidi case: RATE sessions per second, each a bidirectional
# call of tressibench.Echo/Bidi: open, 10 messages each awaited by its
# content, half-close, the final status (12 steps, 11 rows per session).
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:50051"
}
variable "rate" {
  type    = number
  default = 500
}
variable "connections" {
  type    = number
  default = 10
}
variable "duration" {
  type    = string
  default = "5s"
}

target "echo" {
  url         = var.base_url
  protocol    = "grpc"
  connections = var.connections
  max_streams = 100
  proto {
    files        = ["tressibench.proto"]
    import_paths = ["../../testserver/grpctarget"]
  }
}

scenario "chat" {
  step "open" {
    rpc = "tressibench.Echo/Bidi"
  }
  step "say" {
    stream  = "open"
    message = { text = "hello ${seq}", id = seq }
    repeat  = 10
    await {
      json = { text = "hello ${seq}" }
    }
  }
  step "done" {
    stream     = "open"
    half_close = true
  }
  step "status" {
    stream = "open"
    finish = true
  }
}

load {
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
