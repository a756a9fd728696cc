# want: 7:5 HTTP block on a WebSocket step
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" {
    send = "hi"
    check "c" { contains = "x" }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
