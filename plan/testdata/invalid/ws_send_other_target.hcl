# want: 10:14 Target differs from the connect's
target "t" { url = "ws://x" }
target "u" { url = "ws://y" }
scenario "s" {
  step "a" {
    target  = "t"
    connect = "/ws"
  }
  step "b" {
    target = "u"
    send   = "x"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
