# Artillery's classic script as a tressi plan: arrival phases (warm up,
# ramp up, sustained load), weighted scenarios, and a new connection per
# session, which is Artillery's default ("each scenario creates a new TCP
# connection by design, to mimic real-world user behavior"). The target's
# `connections` caps the sessions holding a connection at once, like
# Artillery's `pool`.
#
#   tressi apply examples/artillery.hcl --var sustained_rate=50

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "warmup" {
  type    = string
  default = "10s"
}
variable "ramp" {
  type    = string
  default = "20s"
}
variable "sustain" {
  type    = string
  default = "30s"
}
variable "warmup_rate" {
  type    = number
  default = 2 # new sessions per second
}
variable "sustained_rate" {
  type    = number
  default = 10
}
variable "think" {
  type    = string
  default = "1s" # a user's pause between two pages
}

target "app" {
  url         = var.base_url
  # Each session holds its connection for its life, about 3 s of think:
  # 50 sessions per second hold 150 at least; 300 leaves room for the
  # answers (tressi plan warns when sessions would queue for connections).
  connections = 300
  timeout     = "2s"
  connection  = "session"
}

data "users" {
  csv   = "users.csv"
  order = "random"
}

# Three in four arrivals browse anonymously...
scenario "browse" {
  weight = 3
  think  = var.think
  step "home" {
    path = "/"
  }
  step "search" {
    path = "/delay/20?q=item-${random_int(1, 1000)}"
  }
  step "item" {
    path = "/bytes/2048"
  }
}

# ...and one in four signs in and checks the account.
scenario "sign_in" {
  weight = 1
  step "login" {
    method  = "POST"
    path    = "/login"
    body    = jsonencode({ user = row.username, password = row.password })
    capture = { token = json("token") }
  }
  step "account" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
    repeat  = 3
    think   = var.think
  }
}

load {
  model = "open"
  seed  = 7
  stage { # warm up
    duration = var.warmup
    rate     = var.warmup_rate
  }
  stage { # ramp up
    duration = var.ramp
    rate     = var.warmup_rate
    to       = var.sustained_rate
  }
  stage { # sustained load
    duration = var.sustain
    rate     = var.sustained_rate
  }
}

thresholds {
  error_rate = 0.01
  p99        = "500ms"
}
