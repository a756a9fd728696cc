# want: 10:1 Duplicate load block
target "api" { url = "http://x" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
