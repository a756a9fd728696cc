# want: 4:3 WebSocket step without connect
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { send = "x" }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
