# want: 7:15 Invalid skip_if
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" {
    send    = "x"
    skip_if = "(chn"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
