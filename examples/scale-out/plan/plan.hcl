# The plan the scale-out examples ship: these sources (a few KB, whatever
# the schedule's size) go into a ConfigMap or a Nomad template, and every
# shard compiles them itself, refusing to run unless it gets the schedule
# hash the operator planned (tressi apply --expect-hash).
#
#   tressi plan examples/scale-out/plan    # 273,000 requests over 2m30s, peak 2,000 req/s

variable "base_url" {
  type        = string
  default     = "http://127.0.0.1:8080"
  description = "The system under test, as every shard reaches it."
}

variable "rate" {
  type        = number
  default     = 2000
  description = "Requests per second of the whole run, all shards together."
}

variable "duration" {
  type    = string
  default = "120s"
}

variable "token" {
  type        = string
  default     = ""
  sensitive   = true
  description = "Bearer token; from a Kubernetes Secret or a Nomad variable as TRESSI_VAR_token."
}

target "api" {
  url         = var.base_url
  connections = 4096
  timeout     = "2s"
  headers = {
    Authorization = "Bearer ${var.token}"
  }
}

endpoint "home" {
  path   = "/"
  weight = 3
}

endpoint "payload" {
  path   = "/bytes/512"
  weight = 1
}

load {
  stage {
    duration = "30s"
    rate     = var.rate / 10
    to       = var.rate
  }
  stage {
    duration = var.duration
    rate     = var.rate
  }
}

# Judged by `tressi report` over all shards' rows together: a shard cannot
# judge the whole load alone.
thresholds {
  error_rate = 0.01
  p99        = "250ms"
}
