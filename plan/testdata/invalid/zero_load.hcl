# want: 4:1 Load that starts nothing
target "api" { url = "http://x" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 0
  }
}
