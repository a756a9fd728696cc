# want: 5:3 HTTP step in a WebSocket scenario
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" { path = "/x" }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
