target "api" {
  url       = "http://127.0.0.1:8080"
# want: 4:15 Invalid redirects
  redirects = -1
}
endpoint "home" {
# want: 8:15 Invalid redirects
  redirects = 21
}
scenario "s" {
  step "a" {
# want: 13:17 Invalid redirects
    redirects = 2.5
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
