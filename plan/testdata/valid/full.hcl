variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "token" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
variable "rate" {
  type    = number
  default = 10
}

target "api" {
  url             = var.base_url
  connections     = 64
  connection      = "pool"
  timeout         = "1s"
  connect_timeout = "500ms"
  headers         = { "User-Agent" = "tressi" }
  tls {
    insecure_skip_verify = true
  }
}

endpoint "home" {
  method = "get"
  path   = "/"
  weight = 3
  expect {
    status = [200]
  }
}

endpoint "create" {
  path     = "/items/${seq}"
  headers  = { "Content-Type" = "application/json", Authorization = "Bearer ${var.token}" }
  body     = jsonencode({ name = "widget", id = uuid(), n = random_int(1, 6) })
  max_rate = 200
}

scenario "login_and_browse" {
  weight = 2
  think  = "50ms"
  step "login" {
    path    = "/login"
    body    = jsonencode({ user = row.username, password = row.password })
    capture = { token = json("token"), sid = header("X-Session") }
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = 10
    think   = "100ms"
  }
}

data "users" {
  csv   = "users.csv"
  order = "random"
}

load {
  model     = "open"
  selection = "weighted"
  arrival   = "poisson"
  seed      = 42
  stage {
    duration = "10s"
    rate     = 1
    to       = var.rate
  }
  stage {
    duration = "30s"
    rate     = var.rate
  }
}

thresholds {
  error_rate   = 0.05
  error_count  = 1000
  status_codes = [500, 503]
  p99          = "250ms"
  abort        = false
}
