# want: 4:16 Invalid connection
target "api" {
  url        = "http://x"
  connection = "shared"
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
