target "api" {
  url = "http://127.0.0.1:8080"
}
endpoint "home" {
# want: 6:13 Invalid cookies
  cookies = "session"
}
scenario "s" {
# want: 10:13 Invalid cookies
  cookies = "jar"
  step "a" {}
}
scenario "off" {
  cookies = "off"
  step "login" {
# want: 17:5 Invalid capture
    capture = { sid = cookie("sid") }
  }
  step "bad" {
# want: 21:15 Invalid capture
    capture = { x = cookie("not a name") }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
