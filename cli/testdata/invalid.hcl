variable "token" {
  type      = string
  default   = "not-for-your-eyes"
  sensitive = true
}
target "api" {
  url         = "http://127.0.0.1:8080"
  connections = 0
}
endpoint "home" {
  weight = -1
}
