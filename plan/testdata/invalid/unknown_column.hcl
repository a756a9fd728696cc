# want: 4:20 Unknown data column
target "api" { url = "http://x" }
endpoint "home" {
  path = "/users/${row.nmae}"
}
data "users" { csv = "../valid/users.csv" }
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
