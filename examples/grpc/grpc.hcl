# gRPC unary calls on the event loop, over h2c to the built-in gRPC target.
#
#   tressi target --grpc --addr 127.0.0.1:50051 &
#   tressi apply examples/grpc
#   tressi apply examples/grpc --var rate=2000 --var duration=30s
#   tressi target --grpc --tls --addr 127.0.0.1:50443 --ca-out /tmp/grpc-ca.pem &    # h2 by ALPN
#   tressi apply examples/grpc --var base_url=grpcs://127.0.0.1:50443 --var ca_file=/tmp/grpc-ca.pem
#
# The schema comes from tressibench.proto (the target's own); proto {
# reflection = true } would ask the server instead, and proto { protoset =
# "echo.protoset" } reads a compiled descriptor set. Either way the .tplan
# embeds it. One call in ten asks the server to fail with NOT_FOUND, which
# the endpoint expects: the report counts calls by gRPC code per endpoint.

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:50051"
}
variable "ca_file" {
  type        = string
  default     = ""
  description = "PEM certificates to trust for a grpcs:// or https:// url (a private CA); empty: the system roots"
}
variable "server_name" {
  type    = string
  default = ""
}
variable "rate" {
  type    = number
  default = 200
}
variable "duration" {
  type    = string
  default = "5s"
}

target "echo" {
  url         = var.base_url
  protocol    = "grpc"
  connections = 4
  max_streams = 50
  proto {
    files = ["tressibench.proto"]
  }
  tls {
    ca_file     = var.ca_file
    server_name = var.server_name
  }
}

endpoint "unary" {
  weight   = 9
  rpc      = "tressibench.Echo/Unary"
  message  = { text = "hello ${seq}", id = seq, inner = { note = "fixed", n = 7 } }
  metadata = { "x-tenant" = "a" }
  deadline = "1s"
}

endpoint "not_found" {
  weight  = 1
  rpc     = "tressibench.Echo/Unary"
  message = { text = "nobody", code = 5, message = "no such user" }
  expect {
    status = ["NOT_FOUND"]
  }
}

load {
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
