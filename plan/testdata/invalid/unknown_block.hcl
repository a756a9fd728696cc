# want: 3:1 Unsupported block type
target "api" { url = "http://x" }
endpointz "home" {}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
