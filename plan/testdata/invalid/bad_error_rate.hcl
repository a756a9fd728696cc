# want: 5:16 Invalid error_rate
target "api" { url = "http://x" }
endpoint "home" {}
thresholds {
  error_rate = 1.5
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
