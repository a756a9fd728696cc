# want: 4:20 No data for row
target "api" { url = "http://x" }
endpoint "home" {
  path = "/users/${row.name}"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
