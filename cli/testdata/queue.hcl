target "api" {
  url         = "http://127.0.0.1:8080"
  connections = 2
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 100
  }
}
