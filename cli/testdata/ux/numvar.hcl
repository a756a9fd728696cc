variable "rate" {
  type    = number
  default = 5
}
target "api" {
  url = "http://127.0.0.1:1"
}
endpoint "home" {
  path = "/"
}
load {
  stage {
    duration = "1s"
    rate     = var.rate
  }
}
