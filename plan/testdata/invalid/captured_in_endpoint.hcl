# want: 4:34 captured not allowed here
target "api" { url = "http://x" }
endpoint "home" {
  headers = { Authorization = "${captured.token}" }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
