# bench/redirects: GET /redirect/HOPS on the built-in target, following its
# HOPS redirects (302 to /redirect/HOPS-1, ..., /redirect/0 answers "ok"), at
# a constant arrival rate: one row per chain, HOPS + 1 requests on the wire.
# hops = 0 is the plain request it is measured against.
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "rate" {
  type    = number
  default = 5000
}
variable "duration" {
  type    = string
  default = "5s"
}
variable "hops" {
  type    = number
  default = 3
}

target "bench" {
  url         = var.base_url
  connections = 50
  timeout     = "5s"
}

endpoint "chain" {
  path      = "/redirect/${var.hops}"
  redirects = var.hops
  expect {
    status = [200]
  }
}

load {
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
