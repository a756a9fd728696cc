# want: 7:15 Unsupported argument here
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" {
    hold    = "1s"
    skip_if = "x"
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
