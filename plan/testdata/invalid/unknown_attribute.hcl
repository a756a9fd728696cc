# want: 4:3 Unsupported argument
target "api" {
  url   = "http://x"
  conns = 3
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
