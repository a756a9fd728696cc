# want: 4:10 Invalid path
target "api" { url = "http://x" }
endpoint "home" {
  path = "items"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
