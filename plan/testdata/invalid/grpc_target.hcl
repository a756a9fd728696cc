target "a" {
  url      = "http://127.0.0.1:50051"
  protocol = "grpc"
# want: 1:1 Missing proto block
}

target "b" {
  url      = "grpcs://127.0.0.1:50051"
  protocol = "h2"
# want: 9:14 Invalid protocol
  proto {
    protoset = "x.protoset"
    reflection = true
  }
# want: 11:3 Ambiguous proto block
}

target "c" {
  url = "http://127.0.0.1:8080"
  proto {
    files = ["x.proto"]
  }
# want: 20:3 proto block on a non-gRPC target
}

target "d" {
  url      = "grpc://127.0.0.1:50051"
  proto {
    files = ["missing.proto"]
  }
# want: 28:3 Cannot load the gRPC schema
}

endpoint "http" {
  target = "c"
  rpc    = "tressibench.Echo/Unary"
# want: 36:3 gRPC attribute on an HTTP target
}

load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
