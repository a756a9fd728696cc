# want: 2:1 No value for required variable
variable "base_url" {}
target "api" { url = var.base_url }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
