# want: 7:15 Capture without await
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" {
    send    = "x"
    capture = { t = json("t") }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
