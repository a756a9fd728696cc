target "echo" {
  url = "grpc://127.0.0.1:50051"
  proto {
    files        = ["tressibench.proto"]
    import_paths = ["../grpc"]
  }
}

target "chat" {
  url = "ws://127.0.0.1:8080"
}

scenario "calls" {
  step "first" {
    target  = "echo"
    rpc     = "tressibench.Echo/Unary"
    message = { text = "x" }
    capture = { id = json("id") }
# want: 18:5 JSON capture on a gRPC call
  }
  step "second" {
    target  = "echo"
    rpc     = "tressibench.Echo/Unary"
    message = { text = "x" }
  }
}

scenario "ws" {
  step "connect" {
    target  = "chat"
    connect = "/ws/echo"
  }
  step "send" {
    send = "hi"
    rpc  = "tressibench.Echo/Unary"
# want: 35:5 gRPC attribute on a WebSocket step
  }
}

load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
