# want: 4:17 Invalid connections
target "api" {
  url         = "http://x"
  connections = 0
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
