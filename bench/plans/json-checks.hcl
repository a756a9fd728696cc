# GET a 1 KB JSON document with checks of every kind on it (a JSON path
# before and one after the padding, a contains, a body regex, a header and
# the size): bench/checks compares its CPU per request with json-open.hcl.
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
  check "status_ok" {
    json   = "status"
    equals = "ok"
  }
  check "gadget_id" {
    json  = "items[1].id"
    regex = "^[0-9]+$"
  }
  check "ends" {
    json   = "end"
    equals = true
  }
  check "token" { contains = "t-123" }
  check "ids" { regex = "\"id\":\"1[0-9]\"" }
  check "json_type" {
    header   = "Content-Type"
    contains = "application/json"
  }
  check "size" {
    min_size = 1000
    max_size = 1100
  }
}

load {
  model = "open"
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
