# HTTP/2 for bench/h2, open model: GET / at `rate` req/s over `connections`
# connections of up to `max_streams` streams each (h2load --rps).
variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
}
variable "protocol" {
  type    = string
  default = "h2"
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
  model = "open"
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
