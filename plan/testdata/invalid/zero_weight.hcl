# want: 4:12 Invalid weight
target "api" { url = "http://x" }
endpoint "home" {
  weight = 0
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
