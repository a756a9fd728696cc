# want: 4:1 Duplicate scenario "home"
target "api" { url = "http://x" }
endpoint "home" {}
scenario "home" {
  step "one" {}
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
