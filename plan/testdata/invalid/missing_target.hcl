# want: 4:1 Missing target
target "a" { url = "http://x" }
target "b" { url = "http://y" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
