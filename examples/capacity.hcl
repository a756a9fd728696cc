# Capacity search: the highest arrival rate the service sustains with p99 at
# or under 50 ms and under 1% errors. Against the built-in target
# (`tressi target`), /queue is one FIFO server with a fixed service time, so
# its capacity is known: 1 / service, 2,000 req/s for 500us.
#
#   tressi plan  examples/capacity.hcl     # probe bounds and worst-case time
#   tressi apply examples/capacity.hcl     # runs the probes, prints max_rate
#   tressi apply examples/capacity.hcl --var model=closed --var from=10 --var to=1000
#                                          # users instead of rates (think 0)

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
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
  default = 8000
}

target "svc" {
  url         = var.base_url
  connections = 2048   # >= to × timeout (Little's law), so the generator never queues for a connection
  timeout     = "250ms"
}

endpoint "work" {
  path = "/queue?service=${var.service}"
}

load {
  model = var.model
  seed  = 7
  search {
    from       = var.from
    to         = var.to
    growth     = 2        # ×2 per probe until one fails
    precision  = 0.05     # then bisect until min_failing is within 5% of max_rate
    max_probes = 10
    warmup     = "1s"     # sent and recorded, not judged
    hold       = "5s"     # judged: a failing probe stops as soon as it clearly failed
    cooldown   = "1s"     # lets a backlog drain between probes
  }
}

thresholds {
  p99        = "50ms"
  error_rate = 0.01
}
