# HTTPS: Closed model for bench/run: `users` concurrent users, each
# sending GET / as soon as its previous response is complete (what wrk -c,
# bombardier -c and hey -c do). The scripts set base_url, users and duration.
variable "ca_file" {
  type = string
}
variable "base_url" {
  type    = string
  default = "https://127.0.0.1:8443"
}
variable "users" {
  type    = number
  default = 50
}
variable "duration" {
  type    = string
  default = "5s"
}

target "bench" {
  url         = var.base_url
  connections = var.users # one connection per user, like the peers
  timeout     = "5s"
  tls {
    ca_file = var.ca_file # the bench's self-signed certificate: verification stays on
  }
}

endpoint "root" {
  method = "GET"
  path   = "/"
}

load {
  model = "closed"
  stage {
    duration = var.duration
    users    = var.users
  }
}
