# A ramp from 10 to 100 req/s over 10 s, then 100 req/s for 5 s: exactly
# 550 + 500 requests, split 3:1.
target "api" {
  url         = "http://127.0.0.1:9"
  connections = 500
}
endpoint "home" {
  path   = "/"
  weight = 3
}
endpoint "create" {
  method = "POST"
  path   = "/items"
  body   = jsonencode({ name = "widget" })
  weight = 1
}
load {
  seed = 7
  stage {
    duration = "10s"
    rate     = 10
    to       = 100
  }
  stage {
    duration = "5s"
    rate     = 100
  }
}
