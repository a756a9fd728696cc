# Huge bodies for bench/run (f): a server declaring size-byte bodies
# (GET /bytes/size) at rate req/s. Peak RSS must stay bounded: bodies are
# streamed, only a sample's prefix is kept.
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "rate" {
  type    = number
  default = 20
}
variable "duration" {
  type    = string
  default = "5s"
}
variable "size" {
  type    = number
  default = 62914560
}

target "bench" {
  url         = var.base_url
  connections = 50
  timeout     = "30s"
}

endpoint "bytes" {
  path = "/bytes/${var.size}"
}

load {
  model = "open"
  stage {
    duration = var.duration
    rate     = var.rate
  }
}
