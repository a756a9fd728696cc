# want: 4:22 Invalid CSV file
target "api" { url = "http://x" }
endpoint "home" {}
data "users" { csv = "ragged.csv" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
