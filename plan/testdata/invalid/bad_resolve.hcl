# want: 4:13 Invalid resolve
target "api" {
  url     = "http://api.example:8080"
  resolve = { "api.example:8080" = "127.0.0.1" }
}
target "web" {
  url     = "http://web.example"
# want: 9:13 Invalid resolve
  resolve = { "web.example" = "localhost" }
}
endpoint "home" { target = "api" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
