# Many idle WebSocket sessions held open: each connects, stays connected
# for `hold` (answering the server's pings) and closes cleanly: how many
# sessions one process holds (as many as its descriptors allow; tressi plan
# says when they do not fit the open-file limit).
#
#   tressi target --addr 127.0.0.1:8080 &
#   tressi apply examples/websocket/hold.hcl --var sessions=5000 --var ramp=1m --var hold=60s

variable "base_url" {
  type    = string
  default = "ws://127.0.0.1:8080"
}
variable "sessions" {
  type    = number
  default = 1000
}
variable "ramp" {
  type    = string
  default = "10s" # over which the sessions connect
}
variable "hold" {
  type    = string
  default = "30s"
}
variable "source_addresses" {
  type    = list(string)
  default = [] # e.g. ["127.0.0.2", "127.0.0.3"] past one address's ephemeral ports
}

target "server" {
  url              = var.base_url
  connections      = var.sessions
  timeout          = "10s"
  source_addresses = length(var.source_addresses) > 0 ? var.source_addresses : null
}

scenario "idle" {
  step "connect" {
    connect = "/ws/echo"
  }
  step "hello" {
    send = "hello ${seq}"
    await {
      regex = "^hello "
    }
  }
  step "idle" {
    hold = var.hold
  }
  step "close" {
    close = 1000
  }
}

load {
  stage {
    duration = var.ramp
    rate     = var.sessions / seconds(var.ramp) # any duration: 20s, 1m, 1m30s
  }
}
