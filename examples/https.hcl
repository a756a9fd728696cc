# An HTTPS API, verified against a private CA, optionally with a client
# certificate (mutual TLS). Empty variables leave a setting unset: the
# system's roots, no client certificate, the URL's host as the name.
#
#   tressi apply examples/https.hcl -var base_url=https://api.internal:8443 \
#     -var ca_file=/etc/pki/internal-ca.pem \
#     -var client_cert=client.pem -var client_key=client-key.pem
#
# meta.json then counts the TLS handshakes and how many resumed a session;
# connect_ns in the results says what each new connection cost.

variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
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

target "api" {
  url         = var.base_url
  connections = 16
  timeout     = "300ms" # 50 req/s × 0.3 s fits 16 connections
  tls {
    ca_file     = var.ca_file
    cert_file   = var.client_cert
    key_file    = var.client_key
    server_name = var.server_name
    min_version = "1.2"
  }
}

endpoint "health" {
  path = "/health"
}

load {
  stage {
    duration = "30s"
    rate     = 50
  }
}
