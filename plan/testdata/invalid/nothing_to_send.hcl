# want: 1:1 Nothing to send
target "api" { url = "http://x" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
