# 100k req/s for 100 s: 10 million slots. `tressi plan` must compile it in
# under 3 s and 200 MB (README, "Development").
target "api" {
  url         = "http://127.0.0.1:8080"
  connections = 1000
  timeout     = "10ms"
}
endpoint "home" {
  path   = "/"
  weight = 3
}
endpoint "item" {
  path   = "/items/${seq}"
  weight = 2
}
endpoint "create" {
  method = "POST"
  path   = "/items"
  body   = jsonencode({ id = uuid() })
  weight = 1
}
load {
  stage {
    duration = "100s"
    rate     = 100000
  }
}
