# want: 2:22 row not allowed here
target "api" { url = row.url }
endpoint "home" {}
data "users" { csv = "../valid/users.csv" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
