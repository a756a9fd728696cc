# A plan touching every part of a .tplan header: targets with every
# setting, endpoints with holes (escaped and not), a scenario with
# captures of each kind, repeats, think times and a connection of its own,
# a data feeder, max_rate and thresholds.
target "api" {
  url             = "http://127.0.0.1:8080/v1"
  connections     = 8
  timeout         = "3s"
  connect_timeout = "1s"
  headers         = { "X-Team" = "perf" }
}
target "auth" {
  url        = "http://127.0.0.1:8081"
  connection = "session"
}
data "users" {
  csv   = "users.csv"
  order = "random"
}
endpoint "search" {
  weight   = 3
  max_rate = 50
  path     = "/search?q=${urlencode(row.username)}&n=${seq}"
  target   = "api"
  expect {
    status = [200, 404]
  }
}
endpoint "create" {
  target  = "api"
  method  = "POST"
  path    = "/items"
  body    = jsonencode({ id = uuid(), n = random_int(1, 9) })
  headers = { "Content-Type" = "application/json" }
}
scenario "journey" {
  weight = 2
  step "login" {
    target  = "auth"
    method  = "POST"
    path    = "/login"
    body    = jsonencode({ user = row.username, password = row.password })
    capture = { token = json("data.token"), sid = header("X-Session"), csrf = regex("csrf=(\\w+)") }
  }
  step "me" {
    target  = "api"
    path    = "/me/${captured.sid}"
    headers = { Authorization = "Bearer ${captured.token}", "X-CSRF" = "${captured.csrf}" }
    repeat  = 3
    think   = "20ms"
  }
}
load {
  seed = 9
  stage {
    duration = "2s"
    rate     = 20
  }
}
thresholds {
  error_rate   = 0.01
  error_count  = 5
  status_codes = [500, 503]
  p99          = "250ms"
  abort        = false
}
