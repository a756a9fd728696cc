# An API over HTTP/2: requests share a few connections as streams.
#
#   tressi target &    # the built-in target speaks h2c
#   tressi apply examples/http2.hcl --var base_url=http://127.0.0.1:8080 --var protocol=h2c
#   tressi target --tls --addr 127.0.0.1:8443 --ca-out /tmp/target-ca.pem &    # h2 by ALPN
#   tressi apply examples/http2.hcl --var base_url=https://127.0.0.1:8443 --var ca_file=/tmp/target-ca.pem
#   tressi apply examples/http2.hcl --var base_url=https://api.internal:8443 --var ca_file=/etc/pki/internal-ca.pem
#
# protocol "h2" needs an https:// url and a server that picks h2 by ALPN;
# "h2c" is cleartext HTTP/2 with prior knowledge (the built-in target, Go's
# servers with Protocols.SetUnencryptedHTTP2, nginx's `listen … http2`
# without ssl); "auto" takes HTTP/1.1 from a server that offers no HTTP/2.
# meta.json's "protocols" says what each target's connections spoke. The
# paths are routes the built-in target serves (/bytes/{n}, /echo): point
# list_path and create_path at your API's.

variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
}
variable "protocol" {
  type    = string
  default = "h2"
}
variable "ca_file" {
  type        = string
  default     = ""
  description = "PEM certificates to trust instead of the system roots (a private CA); empty: the system roots"
}
variable "server_name" {
  type        = string
  default     = ""
  description = "the name to verify when the URL names an address"
}
variable "list_path" {
  type    = string
  default = "/bytes/512"
}
variable "create_path" {
  type    = string
  default = "/echo"
}
variable "rate" {
  type    = number
  default = 200
}
variable "duration" {
  type    = string
  default = "10s"
}

target "api" {
  url         = var.base_url
  protocol    = var.protocol
  connections = 4  # a browser or a gateway opens one or a few
  max_streams = 50 # per connection; fewer if the server's SETTINGS say so
  timeout     = "2s"
  tls {
    ca_file     = var.ca_file
    server_name = var.server_name
  }
}

endpoint "list" {
  path   = "${var.list_path}?page=${random_int(1, 20)}"
  weight = 4
}

endpoint "create" {
  method  = "POST"
  path    = var.create_path
  headers = { "Content-Type" = "application/json" }
  body    = jsonencode({ id = uuid(), n = seq })
  weight  = 1
}

load {
  stage {
    duration = var.duration
    rate     = var.rate
  }
}

thresholds {
  error_rate = 0.01
  p99        = "500ms"
}
