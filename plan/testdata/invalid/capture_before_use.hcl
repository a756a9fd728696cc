# want: 5:36 Capture used before it is captured
target "api" { url = "http://x" }
scenario "s" {
  step "me" {
    headers = { Authorization = "${captured.token}" }
  }
  step "login" {
    capture = { token = json("token") }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
