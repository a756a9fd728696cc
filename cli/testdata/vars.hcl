variable "base_url" {
  type = string
}
target "api" { url = var.base_url }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
