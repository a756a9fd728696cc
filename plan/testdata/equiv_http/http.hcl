variable "password" {
  type      = string
  default   = "pw-from-default"
  sensitive = true
}
target "api" {
  url        = "https://api.example:8443"
  resolve    = { "API.example" = "127.0.0.1" }
  basic_auth = { username = "alice", password = var.password }
}
endpoint "shared" {
  cookies     = "shared"
  digest_auth = { username = "bob", password = var.password }
}
scenario "login" {
  cookies = "off"
  step "login" {
    path = "/login"
  }
}
scenario "jar" {
  step "login" {
    path    = "/login"
    capture = { sid = cookie("sid") }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
