target "chat" {
  url              = "ws://127.0.0.1:6060"
  source_addresses = ["127.0.0.2", "127.0.0.3"]
}
scenario "chat" {
  step "auth" {
    method  = "POST"
    path    = "/auth"
    body    = "u-${seq}"
    capture = { token = json("token") }
  }
  step "connect" {
    connect      = "/v0/channels?apikey=k&s=${seq}"
    headers      = { Authorization = "Bearer ${captured.token}" }
    subprotocols = ["chat"]
    think        = "10ms"
  }
  step "login" {
    send           = jsonencode({ login = { id = "l-${seq}" } })
    exit_if_failed = true
    await {
      json    = { "ctrl.id" = "l-${seq}", "ctrl.code" = 200 }
      timeout = "3s"
      status  = "ctrl.code"
    }
    capture = { subs = json("meta.sub[*].topic") }
  }
  step "pub" {
    send      = "m ${mark}"
    binary    = true
    wait      = false
    repeat    = 3
    think     = "0s"
    think_max = "50ms"
    await {
      regex = "^ok"
    }
  }
  step "topics" {
    for_each = captured.subs
    max      = 4
    step "sub" {
      send    = jsonencode({ sub = { topic = each.value, n = each.index } })
      skip_if = "\"topic\":\"chn"
    }
  }
  step "idle" {
    hold = "1s"
  }
  step "pause" {
    think = "5ms"
  }
  step "bye" {
    close = 1001
  }
}
load {
  stage {
    duration = "1s"
    rate     = 2
  }
}
