# want: 6:15 Conflicting step kinds
target "t" { url = "ws://x" }
scenario "s" {
  step "a" {
    connect = "/ws"
    send    = "x"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
