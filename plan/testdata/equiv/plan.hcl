variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
target "api" {
  url     = var.base_url
  timeout = "2s"
  headers = { "User-Agent" = "tressi" }
  tls {
    insecure_skip_verify = true
  }
}
endpoint "create" {
  path    = "/items/${seq}"
  headers = { "Content-Type" = "application/json" }
  body    = jsonencode({ name = upper("widget"), user = row.username })
  weight  = 2
  expect {
    status = [200, 201]
  }
}
scenario "login" {
  step "login" {
    path    = "/login"
    capture = { token = json("token") }
  }
  step "me" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = 3
  }
}
data "users" { csv = "../valid/users.csv" }
load {
  model = "closed"
  think = "10ms"
  stage {
    duration = "5s"
    users    = 2
    to       = 4
  }
  stage {
    duration = "5s"
    users    = 4
  }
}
thresholds {
  p95 = "100ms"
}
