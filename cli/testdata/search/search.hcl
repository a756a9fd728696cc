variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "model" {
  type    = string
  default = "open"
}
variable "from" {
  type    = number
  default = 40
}
variable "to" {
  type    = number
  default = 320
}

target "q" {
  url         = var.base_url
  connections = 700
  timeout     = "2s"
}

endpoint "work" {
  path = "/queue?service=10ms"
}

load {
  model = var.model
  search {
    from       = var.from
    to         = var.to
    precision  = 0.2
    max_probes = 5
    warmup     = "300ms"
    hold       = "1200ms"
    cooldown   = "100ms"
  }
}

thresholds {
  p99 = "200ms"
}
