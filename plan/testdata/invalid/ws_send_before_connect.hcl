# want: 5:3 WebSocket step before connect
target "t" { url = "ws://x" }
scenario "s" {
  step "login" { path = "/login" }
  step "early" { send = "x" }
  step "a" { connect = "/ws" }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
