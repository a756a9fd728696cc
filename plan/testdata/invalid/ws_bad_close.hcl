# want: 5:22 Invalid close
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" { close = 1005 }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
