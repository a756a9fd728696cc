# want: 6:16 Invalid stage duration
target "api" { url = "http://x" }
endpoint "home" {}
load {
  stage {
    duration = "0s"
    rate     = 1
  }
}
