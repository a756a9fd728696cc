# GET a 1 KB JSON document, no checks: the baseline of bench/checks.
# bench/checks runs it against the built-in target's /json, padded to a
# 1 KB document (pad=851), at a constant arrival rate.
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
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
}

endpoint "json" {
  path = "/json?pad=851"
}

load {
  model = "open"
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
