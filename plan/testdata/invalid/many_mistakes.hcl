# One plan, several mistakes: each gets its own diagnostic on its own line.
# want: 12:17 Invalid connections
# want: 13:17 Invalid duration
# want: 16:12 Invalid weight
# want: 17:12 Invalid method
# want: 20:12 Unknown target
# want: 21:12 Invalid path
# want: 25:16 Invalid duration
# want: 30:16 Invalid error_rate
target "api" {
  url         = "http://127.0.0.1:8080"
  connections = -1
  timeout     = "5"
}
endpoint "home" {
  weight = 0
  method = "G T"
}
endpoint "other" {
  target = "nope"
  path   = "x"
}
load {
  stage {
    duration = "-1s"
    rate     = 10
  }
}
thresholds {
  error_rate = 0
}
