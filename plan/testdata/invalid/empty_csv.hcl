# want: 4:22 Empty CSV file
target "api" { url = "http://x" }
endpoint "home" {}
data "users" { csv = "empty.csv" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
