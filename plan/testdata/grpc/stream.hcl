target "echo" {
  url      = "http://127.0.0.1:50051"
  protocol = "grpc"
  proto {
    files        = ["tressibench.proto"]
    import_paths = ["."]
  }
}

scenario "chat" {
  step "chat" {
    rpc      = "tressibench.Echo/Bidi"
    metadata = { "x-tenant" = "a" }
    deadline = "5s"
  }
  step "say" {
    stream  = "chat"
    message = { text = "hi ${seq}", id = seq }
    repeat  = 10
    await {
      json    = { text = "hi ${seq}" }
      timeout = "2s"
    }
    capture = { n = json("received") }
  }
  step "more" {
    stream  = "chat"
    message = { text = "n=${captured.n}" }
  }
  step "done" {
    stream     = "chat"
    half_close = true
  }
  step "status" {
    stream = "chat"
    finish = true
    expect { status = ["OK", "CANCELLED"] }
  }
}

load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
