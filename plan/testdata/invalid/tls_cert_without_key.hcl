# want: 4:3 Incomplete client certificate
target "api" {
  url = "https://api.test"
  tls {
    cert_file = "../tls/client.pem"
  }
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
