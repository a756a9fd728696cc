# HTTPS sessions for bench/run: `rate` sessions per second, each on a
# connection of its own (connection = "session") that it opens with a TLS
# handshake, uses for `calls` requests and closes. Resumption makes most of
# those handshakes short; meta.json counts them.
variable "ca_file" {
  type = string
}
variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
}
variable "rate" {
  type    = number
  default = 1000
}
variable "duration" {
  type    = string
  default = "30s"
}
variable "calls" {
  type    = number
  default = 2
}
variable "connections" {
  type    = number
  default = 200
}

target "bench" {
  url         = var.base_url
  connections = var.connections # sessions holding a connection at once
  timeout     = "5s"
  connection  = "session"
  tls {
    ca_file = var.ca_file
  }
}

scenario "visit" {
  step "root" {
    path   = "/"
    repeat = var.calls
  }
}

load {
  model = "open"
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
