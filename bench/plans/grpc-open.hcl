# bench/grpc, open model: RATE Unary calls per second, whatever the server
# does (ghz --rps), over CONNS connections.
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:50051"
}
variable "rate" {
  type    = number
  default = 5000
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

endpoint "unary" {
  rpc     = "tressibench.Echo/Unary"
  message = { text = "hello" }
}

load {
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
