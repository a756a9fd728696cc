# want: 4:13 Invalid default value
variable "rate" {
  type    = number
  default = "fast"
}
target "api" { url = "http://x" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
