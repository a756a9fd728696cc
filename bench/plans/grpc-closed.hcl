# bench/grpc, closed model: USERS users calling Unary back to back over
# CONNS connections of STREAMS streams each (ghz -c 100 --connections 10).
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:50051"
}
variable "users" {
  type    = number
  default = 100
}
variable "connections" {
  type    = number
  default = 10
}
variable "streams" {
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
  max_streams = var.streams
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
  model = "closed"
  stage {
    duration = var.duration
    users    = var.users
  }
}
