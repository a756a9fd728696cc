# want: 4:14 Invalid max_rate
target "api" { url = "http://x" }
endpoint "home" {
  max_rate = -1
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
