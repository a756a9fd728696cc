# want: 4:17 Invalid function argument
target "api" { url = "http://x" }
endpoint "home" {
  path = upper("/${seq}")
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
