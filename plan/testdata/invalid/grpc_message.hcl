target "echo" {
  url      = "grpc://127.0.0.1:50051"
  proto {
    files        = ["tressibench.proto"]
    import_paths = ["../grpc"]
  }
}

endpoint "a" {
  rpc     = "tressibench.Echo/Unary"
  message = { txt = "x" }
# want: 11:13 Unknown message field
}

endpoint "b" {
  rpc     = "tressibench.Echo/Unary"
  message = { id = "x${seq}", code = 1.5, kind = "KIND_C" }
# want: 17:13 Invalid message field
# want: 17:13 Invalid per-request number
# want: 17:13 Invalid enum value
}

endpoint "c" {
  rpc = "tressibench.Echo/Nope"
# want: 24:9 Unknown gRPC method
}

endpoint "d" {
  rpc      = "tressibench.Echo/Unary"
  path     = "/x"
# want: 30:3 HTTP attribute on a gRPC call
  metadata = { "grpc-foo" = "x", "trace-bin" = "${seq}" }
# want: 32:14 Invalid metadata name
# want: 32:14 Per-request binary metadata
  expect {
    status = ["NOPE"]
# want: 36:14 Invalid status code
  }
}

endpoint "e" {
# want: 41:1 Missing rpc
  message = { text = "x" }
}

endpoint "f" {
  rpc = "tressibench.Echo/Bidi"
# want: 47:9 Streaming method in an endpoint
}

load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
