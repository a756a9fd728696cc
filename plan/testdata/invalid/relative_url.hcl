# want: 2:22 Invalid target url
target "api" { url = "localhost:8080/x" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
