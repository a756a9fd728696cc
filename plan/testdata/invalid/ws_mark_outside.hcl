# want: 5:15 mark not allowed here
target "t" { url = "http://x" }
endpoint "e" {
  path = "/x"
  body = "m ${mark}"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
