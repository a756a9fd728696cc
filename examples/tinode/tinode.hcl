# Tinode's own load test (loadtest/ in tinode/chat: the Gatling simulations
# tinode.Loadtest, tinode.MeLoadtest and tinode.SingleTopicLoadtest, and the
# Tsung ts_websocket session) in Tinode's wire protocol, step for step:
#
#   connect /v0/channels?apikey=…, pause, {"hi"}, pause, {"login"} basic,
#   {"sub"} me, {"get"} me sub → the user's topics; for each topic: {"sub"}
#   (desc sub data del), publish_count × {"pub"} a random pause of up to
#   publish_interval ms apart, {"leave"}; close.
#
# Every request carries an id and its await matches the reply carrying that
# id, so replies are matched whatever else arrives (data and pres frames of
# other sessions, the trailing ctrl 204/208 of a sub). Each pub's content
# carries a mark: when another session receives the message, tressi records
# the delivery and its latency from the publish (fan-out).
#
#   tressi apply examples/tinode --var num_sessions=100 --var ramp=10
#   tressi apply examples/tinode --var base_url=http://tinode:6060 --var accounts=users.csv
#   tressi apply examples/tinode --var test=MeLoadtest --var username=alice --var password=alice123
#   tressi apply examples/tinode --var test=SingleTopicLoadtest --var topic=grpYOrcDwORhPg
#
# base_url is Tinode's HTTP address; the sessions connect to it with ws://
# (wss:// for https://). The built-in target (`tressi target`) speaks enough
# of the protocol to run all three tests.

variable "base_url" {
  type    = string
  default = "http://127.0.0.1:8080"
}
variable "test" {
  type    = string
  default = "Loadtest" # Loadtest, MeLoadtest or SingleTopicLoadtest
}
variable "num_sessions" {
  type    = number
  default = 100 # total sessions to connect (Tinode: 10000)
}
variable "ramp" {
  type    = number
  default = 10 # seconds over which the sessions start (Tinode: 300)
}
variable "publish_count" {
  type    = number
  default = 10 # messages a session publishes to each topic
}
variable "publish_interval" {
  type    = number
  default = 100 # the most ms a session waits between two messages
}
variable "accounts" {
  type    = string
  default = "users.csv" # username,password (Loadtest, SingleTopicLoadtest)
}
variable "topic" {
  type    = string
  default = "grpTressi0" # SingleTopicLoadtest: the topic to load
}
variable "username" {
  type    = string
  default = "alice" # MeLoadtest: the user whose `me` topic is loaded
}
variable "password" {
  type      = string
  default   = "alice123"
  sensitive = true
}
variable "apikey" {
  type    = string
  default = "AQEAAAABAAD_rAp4DJh05a1HAwFT3A6K" # Tinode's default API key
}
variable "pause" {
  type    = string
  default = "1s" # Gatling's pause after connecting and after hi
}
variable "max_topics" {
  type    = number
  default = 8 # Loadtest: the most subscriptions a session goes through
}

target "tinode" {
  url         = var.base_url
  connections = 20000 # sessions connected at once, at most
  timeout     = "15s" # each await's default timeout, as Tinode's scripts
}

data "accounts" {
  csv   = var.accounts
  order = "random" # Gatling's csv(...).random
}

scenario "Loadtest" {
  weight = var.test == "Loadtest" ? 1 : 0
  data   = "accounts"

  step "connect" {
    connect = "/v0/channels?apikey=${var.apikey}"
    think   = var.pause
  }
  step "hi" {
    send  = jsonencode({ hi = { id = "tn-${seq}-hi", ver = "0.22", ua = "tressi/1.0 (Tinode loadtest)" } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-hi" }
      status = "ctrl.code"
    }
    think = var.pause
  }
  step "login" {
    send = jsonencode({ login = { id = "tn-${seq}-login", scheme = "basic", secret = base64encode("${row.username}:${row.password}") } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-login" }
      status = "ctrl.code"
    }
    capture = { token = json("ctrl.params.token") }
  }
  step "sub-me" {
    send = jsonencode({ sub = { id = "tn-${seq}-sub-me", topic = "me", get = { what = "desc" } } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub-me" }
      status = "ctrl.code"
    }
  }
  step "get-subs" {
    send = jsonencode({ get = { id = "tn-${seq}-get-subs", topic = "me", what = "sub" } })
    await {
      # Tinode answers with a meta carrying the subscriptions, or a ctrl 204
      # when there are none: both carry the request's id.
      regex  = "\"id\":\"tn-[0-9]+-get-subs\""
      status = "ctrl.code"
    }
    capture = { subs = json("meta.sub[*].topic") }
  }
  step "topics" {
    for_each = captured.subs
    max      = var.max_topics

    step "sub-topic" {
      send = jsonencode({ sub = { id = "tn-${seq}-sub-${each.index}", topic = each.value, get = { what = "desc sub data del" } } })
      await {
        json   = { "ctrl.id" = "tn-${seq}-sub-${each.index}" }
        status = "ctrl.code"
      }
    }
    step "pub-topic" {
      send      = jsonencode({ pub = { id = "tn-${seq}-pub-${each.index}", topic = each.value, content = "This is a tressi test ${mark}" } })
      repeat    = var.publish_count
      think     = "0ms"
      think_max = "${var.publish_interval}ms"
      await {
        json   = { "ctrl.id" = "tn-${seq}-pub-${each.index}" }
        status = "ctrl.code"
      }
    }
    step "leave-topic" {
      send = jsonencode({ leave = { id = "tn-${seq}-leave-${each.index}", topic = each.value } })
      await {
        json   = { "ctrl.id" = "tn-${seq}-leave-${each.index}" }
        status = "ctrl.code"
      }
    }
  }
  step "close" {
    close = 1000
  }
}

# MeLoadtest: every session logs in as the same user and subscribes to its
# `me` topic, to max out `me` connections; it stays until it closes.
scenario "MeLoadtest" {
  weight = var.test == "MeLoadtest" ? 1 : 0

  step "connect" {
    connect = "/v0/channels?apikey=${var.apikey}"
    think   = var.pause
  }
  step "hi" {
    send = jsonencode({ hi = { id = "tn-${seq}-hi", ver = "0.22", ua = "tressi/1.0 (Tinode loadtest)" } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-hi" }
      status = "ctrl.code"
    }
    think = var.pause
  }
  step "login" {
    send = jsonencode({ login = { id = "tn-${seq}-login", scheme = "basic", secret = base64encode("${var.username}:${var.password}") } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-login" }
      status = "ctrl.code"
    }
  }
  step "sub-me" {
    send = jsonencode({ sub = { id = "tn-${seq}-sub-me", topic = "me", get = { what = "desc" } } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub-me" }
      status = "ctrl.code"
    }
  }
  step "close" {
    close = 1000
  }
}

# SingleTopicLoadtest: every session subscribes to one topic and publishes
# to it, so each message fans out to the sessions attached at the time.
scenario "SingleTopicLoadtest" {
  weight = var.test == "SingleTopicLoadtest" ? 1 : 0
  data   = "accounts"

  step "connect" {
    connect = "/v0/channels?apikey=${var.apikey}"
    think   = var.pause
  }
  step "hi" {
    send = jsonencode({ hi = { id = "tn-${seq}-hi", ver = "0.22", ua = "tressi/1.0 (Tinode loadtest)" } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-hi" }
      status = "ctrl.code"
    }
    think = var.pause
  }
  step "login" {
    send = jsonencode({ login = { id = "tn-${seq}-login", scheme = "basic", secret = base64encode("${row.username}:${row.password}") } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-login" }
      status = "ctrl.code"
    }
  }
  step "sub-topic" {
    send = jsonencode({ sub = { id = "tn-${seq}-sub", topic = var.topic, get = { what = "desc sub data del" } } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub" }
      status = "ctrl.code"
    }
  }
  step "pub-topic" {
    send      = jsonencode({ pub = { id = "tn-${seq}-pub", topic = var.topic, content = "This is a tressi test ${mark}" } })
    repeat    = var.publish_count
    think     = "0ms"
    think_max = "${var.publish_interval}ms"
    await {
      json   = { "ctrl.id" = "tn-${seq}-pub" }
      status = "ctrl.code"
    }
  }
  step "leave-topic" {
    send = jsonencode({ leave = { id = "tn-${seq}-leave", topic = var.topic } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-leave" }
      status = "ctrl.code"
    }
  }
  step "close" {
    close = 1000
  }
}

# num_sessions / ramp sessions per second for ramp seconds: exactly
# num_sessions sessions, evenly spread (Gatling's rampUsers(n) during ramp).
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
