# want: 4:12 Invalid method
target "api" { url = "http://x" }
endpoint "home" {
  method = "GE T"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
