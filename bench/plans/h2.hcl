# HTTP/2 for bench/h2: GET / over `connections` connections of `max_streams`
# streams each, in the closed model (`users` users sending back to back, what
# h2load -c -m does) or the open model (`rate` req/s, what h2load --rps does).
variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
}
variable "protocol" {
  type    = string
  default = "h2"
}
variable "model" {
  type    = string
  default = "closed"
}
variable "users" {
  type    = number
  default = 100
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
  model = var.model
  stage {
    duration = var.duration
    users    = var.model == "closed" ? var.users : null
    rate     = var.model == "open" ? var.rate : null
  }
}
