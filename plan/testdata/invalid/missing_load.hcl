# want: 1:1 Missing load block
target "api" { url = "http://x" }
endpoint "home" {}
