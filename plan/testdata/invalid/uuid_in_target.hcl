# want: 2:22 Per-request value not allowed here
target "api" { url = "http://${uuid()}" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
