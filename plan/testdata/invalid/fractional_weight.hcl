# want: 4:12 Invalid weight
target "api" { url = "http://x" }
endpoint "home" {
  weight = 1.5
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
