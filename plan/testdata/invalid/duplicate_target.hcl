# want: 3:1 Duplicate target "api"
target "api" { url = "http://x" }
target "api" { url = "http://y" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
