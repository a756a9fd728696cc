# want: 4:12 Unknown target
target "api" { url = "http://x" }
endpoint "home" {
  target = "apii"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
