# want: 8:16 Invalid stage to
target "api" { url = "http://x" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
    to       = -5
  }
}
