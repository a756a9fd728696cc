# want: 4:19 Cannot read ca_file
target "api" {
  url = "https://api.test"
  tls { ca_file = "../tls/absent.pem" }
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
