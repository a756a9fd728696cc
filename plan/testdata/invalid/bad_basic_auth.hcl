target "api" {
  url        = "http://127.0.0.1:8080"
# want: 4:16 Invalid basic_auth
  basic_auth = { username = "alice" }
}
endpoint "home" {
  headers    = { Authorization = "Bearer x" }
# want: 9:16 Invalid basic_auth
  basic_auth = { username = "bob", password = "pw" }
}
endpoint "row" {
# want: 13:32 seq not allowed here
  basic_auth = { username = "${seq}", password = "pw" }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
