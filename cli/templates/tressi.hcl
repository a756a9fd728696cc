# A tressi load plan. Check it with `tressi validate`, see the schedule it
# compiles to with `tressi plan`, and run it with `tressi apply`.
# Durations are Go-style strings: "250ms", "5s", "1m30s".

# Variables can be set with --var base_url=..., a --var-file, or the environment
# variable TRESSI_VAR_base_url. Try it against `tressi target`, tressi's
# built-in test server.
variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}

# The load, small enough that a first run takes five seconds. Scale it up
# from the command line, without editing this file:
#   tressi apply --var rate=500 --var duration=1m
variable "rate" {
  type        = number
  default     = 20
  description = "requests per second at full load"
}
variable "duration" {
  type        = string
  default     = "4s"
  description = "how long the full load holds, after a 1s ramp"
}

# A server to send requests to. Its URL's path prefixes every request path.
target "api" {
  url             = var.base_url
  connections     = 64     # most connections open at once to this target
  connection      = "pool" # "pool": shared keep-alive connections;
                           # "session": each scenario session opens its own
  timeout         = "1s"   # for the whole request, connection wait included
  connect_timeout = "500ms"
  headers         = { "User-Agent" = "tressi" }
}

# An endpoint is one request. With a single target, `target` may be left out.
# The weights share the load: 3 of every 4 requests go to "home".
endpoint "home" {
  method = "GET"
  path   = "/"
  weight = 3
  expect {
    status = [200] # any other status counts as an error (default: 200-399)
  }
}

endpoint "echo" {
  method  = "POST" # the default is GET, or POST when a body is set
  path    = "/echo"
  headers = { "Content-Type" = "application/json" }
  # Values that differ per request are filled in when sending: seq (the slot
  # number), uuid(), random_int(min, max), and row.* from a data block.
  body   = jsonencode({ id = uuid(), n = seq })
  weight = 1
}

# How much traffic to send. The open model starts requests at a rate, whatever
# the server's speed, so a slow server shows up as latency, not as less load.
load {
  model     = "open"
  selection = "weighted" # or "round_robin", or "random" (seeded)
  arrival   = "uniform"  # or "poisson" (seeded)
  seed      = 1          # same plan + same seed = the same schedule
  stage {
    duration = "1s"
    rate     = 1        # requests per second at the start of the stage...
    to       = var.rate # ...ramping linearly to this at its end
  }
  stage {
    duration = var.duration
    rate     = var.rate
  }
}

# The closed model instead keeps a number of users busy: each sends its next
# request when the previous one is done, after `think`:
#
# load {
#   model = "closed"
#   think = "100ms"
#   stage {
#     duration = "30s"
#     users    = 10
#     to       = 50
#   }
# }

# Pass/fail criteria: a failed threshold makes `tressi apply` exit with 2.
thresholds {
  error_rate = 0.01    # stop early when more than 1% of recent requests fail
  p99        = "250ms" # 99th percentile latency, measured from when each request was due
  abort      = true    # false: judge at the end, never stop early
}
