# HTTPS: Open model for bench/run: GET / at a constant arrival
# rate, whatever the server does (what vegeta attack -rate does). The scripts
# set base_url, rate, duration and connections.
variable "ca_file" {
  type = string
}
variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
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
  tls {
    ca_file = var.ca_file # the bench's self-signed certificate: verification stays on
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
