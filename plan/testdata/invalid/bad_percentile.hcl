# want: 5:9 Invalid duration
target "api" { url = "http://x" }
endpoint "home" {}
thresholds {
  p99 = "fast"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
