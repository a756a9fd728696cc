# want: 8:5 Open and closed stages mixed
target "api" { url = "http://x" }
endpoint "home" {}
load {
  model = "closed"
  stage {
    duration = "1s"
    rate     = 1
  }
}
