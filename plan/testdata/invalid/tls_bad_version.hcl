# want: 5:23 Invalid min_version
# want: 10:19 Invalid max_version
target "api" {
  url = "https://api.test"
  tls { min_version = "1.1" }
}
target "b" {
  url = "https://b.test"
  tls {
    max_version = "1.2"
    min_version = "1.3"
  }
}
endpoint "home" { target = "api" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
