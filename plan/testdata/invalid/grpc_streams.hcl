target "echo" {
  url      = "grpc://127.0.0.1:50051"
  proto {
    files        = ["tressibench.proto"]
    import_paths = ["../grpc"]
  }
}

scenario "server" {
  step "open" {
    rpc     = "tressibench.Echo/ServerStream"
    message = { text = "x", count = 2 }
  }
  step "say" {
    stream  = "open"
    message = { text = "y" }
# want: 16:15 Send on a server-streaming call
  }
  step "get" {
    stream = "opne"
# want: 20:14 Unknown stream
    await {}
  }
}

scenario "client" {
  step "open" {
    rpc     = "tressibench.Echo/ClientStream"
    message = { text = "x" }
# want: 29:15 Message on a stream's open step
  }
  step "say" {
    stream  = "open"
    message = { txt = "y" }
# want: 34:15 Unknown message field
    path    = "/x"
# want: 36:5 Unsupported argument on a stream step
  }
  step "done" {
    stream     = "open"
    half_close = true
  }
  step "late" {
    stream  = "open"
    message = { text = "z" }
# want: 45:15 Send after half-close
  }
  step "reply" {
    stream = "open"
    repeat = 2
    await {}
# want: 48:3 Await with no reply left
    capture = { t = header("x") }
# want: 53:15 Invalid capture
  }
}

scenario "bidi" {
  step "open" { rpc = "tressibench.Echo/Bidi" }
  step "end" {
    stream = "open"
    finish = true
    cancel = true
# want: 62:14 Conflicting step kinds
  }
  step "more" {
    stream = "open"
# want: 67:14 Stream already ended
    await {}
  }
  step "idle" {
    stream = "open"
# want: 72:14 Stream already ended
  }
  step "again" { rpc = "tressibench.Echo/Bidi" }
  step "nothing" {
# want: 76:3 Stream step without action
    stream = "again"
  }
  step "third" { rpc = "tressibench.Echo/Bidi" }
# want: 80:3 Second open stream
}

load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
