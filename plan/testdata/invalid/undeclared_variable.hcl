# want: 2:22 Reference to undeclared variable
target "api" { url = var.base_url }
endpoint "home" {}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
