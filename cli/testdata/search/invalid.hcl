endpoint "e" {
  path = "/"
}

load {
  stage {
    duration = "10s"
    rate     = 5
  }
  search {
    from       = 100
    to         = 50
    precision  = 1.5
    max_probes = 1
    growth     = 1
    hold       = "0s"
  }
}
