variable "want_status" { default = "ok" }
target "api" { url = "http://127.0.0.1:8080" }
endpoint "item" {
  path = "/json"
  check "status_ok" {
    json   = "status"
    equals = var.want_status
  }
  check "count" {
    json   = "items[0].count"
    equals = 42
  }
  check "id_digits" {
    json  = "items[0].id"
    regex = "^[0-9]+$"
  }
  check "has_token" {
    json   = "data.token"
    exists = true
  }
  check "no_error" {
    json   = "error"
    exists = false
  }
  check "greets" { contains = "hello" }
  check "title" { regex = "<title>[^<]+</title>" }
  check "json_type" {
    header   = "Content-Type"
    contains = "application/json"
  }
  check "size" {
    min_size = 100
    max_size = 2048
  }
}
scenario "s" {
  step "login" {
    path = "/login"
    check "welcomed" { contains = "welcome" }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
