# WebSocket sessions over TLS (wss://), in the closed model: `users` users,
# each connecting, sending `messages` frames one after another (each awaits
# its echo), then closing, and starting again after `think`. The target's
# tls block works as for https: verification against the system roots or
# ca_file, an optional client certificate, the name to verify. Empty
# variables leave a setting unset.
#
#   tressi apply examples/wss.hcl -var base_url=wss://chat.internal:8443 \
#     -var ca_file=/etc/pki/internal-ca.pem
#
# The connect row's connect_ns is the TCP connect plus the TLS handshake;
# meta.json counts the handshakes. A certificate that fails verification
# makes every connect row a tls error whose sample says why.

variable "base_url" {
  type    = string
  default = "wss://127.0.0.1:8443"
}
variable "path" {
  type        = string
  default     = "/ws/echo"
  description = "the upgrade's path: /ws/echo is the built-in target's echo"
}
variable "ca_file" {
  type        = string
  default     = ""
  description = "PEM certificates to trust instead of the system roots"
}
variable "client_cert" {
  type    = string
  default = ""
}
variable "client_key" {
  type    = string
  default = ""
}
variable "server_name" {
  type        = string
  default     = ""
  description = "the name to verify when the URL names an address"
}
variable "users" {
  type    = number
  default = 20
}
variable "messages" {
  type    = number
  default = 10
}
variable "duration" {
  type    = string
  default = "30s"
}

target "chat" {
  url             = var.base_url
  connections     = var.users # one session per user at a time
  connect_timeout = "5s"      # the TCP connect and the TLS handshake
  timeout         = "5s"
  tls {
    ca_file     = var.ca_file
    cert_file   = var.client_cert
    key_file    = var.client_key
    server_name = var.server_name
  }
}

scenario "chat" {
  step "connect" {
    connect = var.path
  }
  step "say" {
    send   = jsonencode({ n = "m-${seq}", text = "hello" })
    repeat = var.messages
    think  = "100ms"
    await {
      json = { n = "m-${seq}" }
    }
  }
  step "bye" {
    close = 1000
  }
}

load {
  model = "closed"
  think = "1s" # between a user's sessions
  stage {
    duration = var.duration
    users    = var.users
  }
}
