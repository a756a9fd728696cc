target "api" {
  url              = "http://127.0.0.1:8080"
  connections      = 2
  expected_latency = "50ms"
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 100
  }
}
