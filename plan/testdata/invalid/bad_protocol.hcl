# want: 8:17 Invalid protocol
# want: 12:17 Invalid protocol
# want: 16:17 Invalid protocol
# want: 20:17 Invalid max_streams
# want: 25:17 Invalid max_streams
target "a" {
  url         = "http://x"
  protocol    = "h2"
}
target "b" {
  url         = "https://x"
  protocol    = "h2c"
}
target "c" {
  url         = "https://x"
  protocol    = "http2"
}
target "d" {
  url         = "https://x"
  max_streams = 10
}
target "e" {
  url         = "https://x"
  protocol    = "h2"
  max_streams = 0
}
endpoint "e" {
  target = "a"
  path   = "/"
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
