# The demo plan: `tressi demo` runs it against the built-in test server
# (`tressi target`). Point it elsewhere with --var base_url=http://HOST:PORT.

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}

target "local" {
  url         = var.base_url
  connections = 256  # 200/s answered within the 1s timeout never wait for one
  timeout     = "1s"
}

endpoint "home" {
  path   = "/"
  weight = 3
}

endpoint "slow" {
  path   = "/delay/5" # answers after 5 ms
  weight = 1
}

endpoint "created" {
  method = "POST"
  path   = "/status/201"
  weight = 1
  expect {
    status = [201]
  }
}

# About 200 requests per second for 5 seconds, ramping up over the first 2.
load {
  model = "open"
  seed  = 1
  stage {
    duration = "2s"
    rate     = 20
    to       = 200
  }
  stage {
    duration = "3s"
    rate     = 200
  }
}

thresholds {
  error_rate = 0.01
  p99        = "250ms"
}
