# The capacity search benchmark (bench/search): against the built-in
# target's /queue, one FIFO server with a fixed service time, whose capacity
# is exactly 1 / service. Open model by default; -var model=closed searches
# users (think 0).
variable "base_url" {
  type = string
}
variable "service" {
  type    = string
  default = "500us"
}
variable "model" {
  type    = string
  default = "open"
}
variable "from" {
  type    = number
  default = 500
}
variable "to" {
  type    = number
  default = 16000
}

target "queue" {
  url         = var.base_url
  connections = 4096
  timeout     = "2s"
}

endpoint "work" {
  path = "/queue?service=${var.service}"
}

load {
  model = var.model
  search {
    from       = var.from
    to         = var.to
    growth     = 2
    precision  = 0.05
    max_probes = 10
    warmup     = "2s"
    hold       = "5s"
    cooldown   = "1s"
  }
}

thresholds {
  p99 = "50ms"
}
