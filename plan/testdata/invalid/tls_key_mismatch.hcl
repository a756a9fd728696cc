# want: 6:17 Invalid client certificate
target "api" {
  url = "https://api.test"
  tls {
    cert_file = "../tls/client.pem"
    key_file  = "../tls/other-key.pem"
  }
}
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
