# want: 3:13 Invalid type specification
variable "rate" {
  type    = numbr
  default = 1
}
target "api" { url = "http://x" }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
