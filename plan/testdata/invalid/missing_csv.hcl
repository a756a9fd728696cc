# want: 4:22 Cannot read CSV file
target "api" { url = "http://x" }
endpoint "home" { path = "/${row.a}" }
data "users" { csv = "nope.csv" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
