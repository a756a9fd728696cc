# want: 4:19 Invalid ca_file
target "api" {
  url = "https://api.test"
  tls { ca_file = "../tls/not-pem.txt" }
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
