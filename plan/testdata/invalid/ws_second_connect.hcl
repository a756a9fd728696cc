# want: 6:3 Second connect
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" { send = "x" }
  step "c" { connect = "/ws" }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
