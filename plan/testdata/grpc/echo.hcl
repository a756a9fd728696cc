target "echo" {
  url      = "http://127.0.0.1:50051"
  protocol = "grpc"
  proto {
    files        = ["tressibench.proto"]
    import_paths = ["."]
  }
}

data "users" {
  csv = "users.csv"
}

endpoint "get" {
  rpc = "tressibench.Echo/Unary"
  message = {
    text    = "hello ${seq}"
    id      = seq
    big     = row.n
    inner   = { note = "n-${row.name}", n = 7 }
    tags    = ["a", "b"]
    labels  = { env = "test", zone = "b" }
    kind    = "KIND_B"
    flag    = true
    ratio   = 0.25
    numbers = [1, 2, 3]
    delta   = -5
  }
  metadata = { "x-tenant" = "a", "trace-bin" = "\u0001\u0002" }
  deadline = "1s"
  compression = "gzip"
  expect {
    status = ["OK", "NOT_FOUND"]
  }
}

load {
  stage {
    duration = "2s"
    rate     = 10
  }
}
