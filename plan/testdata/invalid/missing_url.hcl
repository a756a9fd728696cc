# want: 2:14 Missing required argument
target "api" {}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
