variable "password" {
  type      = string
  default   = "pw-from-default"
  sensitive = true
}
target "api" {
  url        = "https://api.example:8443"
  resolve    = { "API.example" = "127.0.0.1" }
  basic_auth = { username = "alice", password = var.password }
  redirects  = 5
}
endpoint "shared" {
  cookies     = "shared"
  redirects   = 0
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
    path      = "/login"
    redirects = 2
    capture = { sid = cookie("sid") }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
