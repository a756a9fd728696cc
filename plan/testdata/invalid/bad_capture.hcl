# want: 5:15 Invalid capture
target "api" { url = "http://x" }
scenario "s" {
  step "login" {
    capture = { token = regex("(a)(b)") }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
