# HTTP/2 for bench/h2, closed model: `users` users sending GET / back to back
# over `connections` connections of `max_streams` streams each (h2load -c -m).
variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
}
variable "protocol" {
  type    = string
  default = "h2"
}
variable "users" {
  type    = number
  default = 100
}
variable "duration" {
  type    = string
  default = "5s"
}
variable "connections" {
  type    = number
  default = 10
}
variable "max_streams" {
  type    = number
  default = 10
}

target "bench" {
  url         = var.base_url
  protocol    = var.protocol
  connections = var.connections
  max_streams = var.max_streams
  timeout     = "5s"
  tls {
    insecure_skip_verify = true # bench/h2's own self-signed certificate
  }
}

endpoint "root" {
  method = "GET"
  path   = "/"
}

load {
  model = "closed"
  stage {
    duration = var.duration
    users    = var.users
  }
}
