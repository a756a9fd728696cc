# want: 5:14 Invalid status code
target "api" { url = "http://x" }
endpoint "home" {
  expect {
    status = [200, 700]
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
