# want: 4:13 Invalid duration
target "api" {
  url     = "http://x"
  timeout = "0s"
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
