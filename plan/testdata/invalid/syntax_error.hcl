# want: 3:13 Missing newline after argument
target "api" {
  url = "a" "b"
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
