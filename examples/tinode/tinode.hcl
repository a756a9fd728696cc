# Tinode's load test (its Tsung and Gatling scripts) as a tressi plan:
# num_sessions sessions ramped over `ramp` seconds, each logging in with an
# account of users.csv, reading its subscriptions, then publishing
# publish_count messages publish_interval ms apart. Parameters come from
# -var, with Tinode's defaults scaled down:
#
#   tressi apply examples/tinode --var num_sessions=100 --var ramp=10
#   tressi apply examples/tinode --var base_url=http://tinode:6060 --var publish_count=2 --var publish_interval=300
#
# Against the built-in target, /me stands in for the subscriptions and
# /echo for the topic that receives messages.

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "num_sessions" {
  type    = number
  default = 100 # total sessions to connect
}
variable "ramp" {
  type    = number
  default = 10 # seconds over which the sessions start
}
variable "publish_count" {
  type    = number
  default = 10 # messages each session publishes
}
variable "publish_interval" {
  type    = number
  default = 100 # ms between a session's messages
}
variable "topic" {
  type    = string
  default = "grpLoadTest"
}

target "tinode" {
  url         = var.base_url
  connections = 1024 # sessions connected at once, at most
  timeout     = "5s"
  # Each session keeps its own connection for its whole life, as a Tinode
  # client does, and closes it when done.
  connection = "session"
}

data "accounts" {
  csv   = "users.csv" # username,password
  order = "sequential"
}

scenario "publish" {
  step "login" {
    method  = "POST"
    path    = "/login"
    body    = jsonencode({ user = row.username, password = row.password })
    capture = { token = json("token") }
  }
  step "subscriptions" {
    path    = "/me"
    headers = { Authorization = "Bearer ${captured.token}" }
  }
  step "message" {
    method  = "POST"
    path    = "/echo"
    headers = { Authorization = "Bearer ${captured.token}", "Content-Type" = "application/json" }
    body    = jsonencode({ pub = { topic = var.topic, content = "message from ${row.username}" } })
    repeat  = var.publish_count
    think   = "${var.publish_interval}ms"
  }
}

# num_sessions / ramp sessions per second for ramp seconds: exactly
# num_sessions sessions, evenly spread.
load {
  model = "open"
  seed  = 1
  stage {
    duration = "${var.ramp}s"
    rate     = var.num_sessions / var.ramp
  }
}

thresholds {
  error_rate = 0.01
}
