# want: 12:3 Empty check
# want: 14:14 Invalid JSON path
# want: 18:16 Conflicting check tests
# want: 21:24 Invalid regex
# want: 22:3 Duplicate check
# want: 24:14 exists needs a subject
# want: 28:16 Size of a value
# want: 32:16 Invalid max_size
# want: 36:14 Conflicting check subjects
target "api" { url = "http://x" }
endpoint "e" {
  check "empty" {}
  check "path" {
    json   = "a..b"
    equals = 1
  }
  check "two" {
    contains = "a"
    regex    = "b"
  }
  check "re" { regex = "(" }
  check "re" { contains = "x" }
  check "body_exists" {
    exists = true
  }
  check "value_size" {
    json     = "a"
    min_size = 3
  }
  check "range" {
    min_size = 10
    max_size = 5
  }
  check "both" {
    json   = "a"
    header = "X"
    exists = true
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
