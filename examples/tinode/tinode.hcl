# Tinode's own load test (loadtest/ in tinode/chat: the Gatling simulations
# tinode.Loadtest, tinode.MeLoadtest and tinode.SingleTopicLoadtest of
# loadtest.scala and tinode.scala) in Tinode's wire protocol, step for step:
#
#   every test: connect /v0/channels?apikey=…, pause, {"hi"}, pause,
#   {"login"} basic, {"sub"} me, {"get"} me sub → the user's topics; then
#   Loadtest: for each topic {"sub"} (desc sub data del), a pause of up to
#     2 s, publish_count × {"pub"} a random pause of up to publish_interval
#     ms apart (none to a channel, chn…, which readers may not publish to),
#     {"leave"}, a pause of up to 3 s; close.
#   MeLoadtest: stay attached to `me` for `hold` seconds; close.
#   SingleTopicLoadtest: {"sub"} topic, a pause of up to 10 s,
#     publish_count × {"pub"}, 15 s, {"leave"}, up to 3 s; close.
#
# Every request carries an id and its await matches the reply carrying that
# id, so replies are matched whatever else arrives (data and pres frames of
# other sessions, the metas and the trailing ctrl 204/208 of a sub). Like the
# Gatling checks, sub and pub must answer 2xx; hi, login and leave any ctrl
# tressi counts as ok (200–399). As Gatling's exitHereIfFailed, a failed
# login, sub me, get or sub ends the session (exit_if_failed: the rows it
# would still have sent are `skipped`): Tinode's sample data has a ban (dave
# banned bob: bob's sub to their chat is a 403), and under contention Tinode
# answers 503 "locked". Each pub's content carries a mark: when another
# session receives the message, tressi records the delivery and its latency
# from the publish (fan-out). A sub fetches the topic's stored messages too
# (get data), and a message of this run fetched that way counts as a
# delivery as old as the message: Loadtest's delivery latency is mostly
# history, SingleTopicLoadtest's p50 is live fan-out.
#
#   tressi apply examples/tinode --var num_sessions=100 --var ramp=10
#   tressi apply examples/tinode --var base_url=http://tinode:6060 --var accounts=users.csv
#   tressi apply examples/tinode --var test=MeLoadtest --var username=alice --var password=alice123
#   tressi apply examples/tinode --var test=SingleTopicLoadtest --var topic=grpYOrcDwORhPg
#
# base_url is Tinode's HTTP address; the sessions connect to it with ws://
# (wss:// for https://). The built-in target (`tressi target`) speaks enough
# of the protocol to run all three tests; real-server.sh builds a real Tinode
# server (v0.22.13, PostgreSQL, its sample data and generated load accounts)
# on loopback and runs the three tests against it.
#
# Where it differs from the Gatling script: every login is basic (Gatling
# logs a user in again with the token an earlier session cached); the
# topics are taken in the server's order (Gatling shuffles them), at most
# max_topics of them; a channel gets no pubs and no 5 s pause instead; a
# failed pub does not end the pubs to its topic (Gatling's exitBlockOnFail
# leaves the repeat); MeLoadtest holds 10 s, not 1000 s, unless asked.

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
variable "pause_scale" {
  type    = number
  default = 1 # Gatling's other pauses (up to 2, 3 or 10 s, and 15 s) times this; 0 drops them
}
variable "hold" {
  type    = number
  default = 10 # MeLoadtest: seconds a session stays on `me` (Gatling: 1000)
}
variable "session_max" {
  type    = number
  default = 300 # seconds a session may run after the ramp (MeLoadtest: beyond hold)
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
    send = jsonencode({ hi = { id = "tn-${seq}-hi", ver = "0.22", ua = "tressi/1.0 (Tinode loadtest)" } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-hi" }
      status = "ctrl.code"
    }
    think = var.pause
  }
  step "login" {
    send           = jsonencode({ login = { id = "tn-${seq}-login", scheme = "basic", secret = base64encode("${row.username}:${row.password}") } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-login" }
      status = "ctrl.code"
    }
    capture = { token = json("ctrl.params.token") }
  }
  step "sub-me" {
    send           = jsonencode({ sub = { id = "tn-${seq}-sub-me", topic = "me", get = { what = "desc" } } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub-me" }
      status = "ctrl.code"
    }
    expect { status = range(200, 300) }
  }
  step "get-subs" {
    send           = jsonencode({ get = { id = "tn-${seq}-get-subs", topic = "me", what = "sub" } })
    exit_if_failed = true # Gatling: exitHereIfFailed
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
      send           = jsonencode({ sub = { id = "tn-${seq}-sub-${each.index}", topic = each.value, get = { what = "desc sub data del" } } })
      exit_if_failed = true # Gatling: exitHereIfFailed
      await {
        json   = { "ctrl.id" = "tn-${seq}-sub-${each.index}" }
        status = "ctrl.code"
      }
      expect { status = range(200, 300) }
      think     = "0s"
      think_max = "${2 * var.pause_scale}s"
    }
    step "pub-topic" {
      send      = jsonencode({ pub = { id = "tn-${seq}-pub-${each.index}", topic = each.value, content = "This is a tressi test ${mark}" } })
      skip_if   = "\"topic\":\"chn" # a channel: readers may not publish
      repeat    = var.publish_count
      think     = "0ms"
      think_max = "${var.publish_interval}ms"
      await {
        json   = { "ctrl.id" = "tn-${seq}-pub-${each.index}" }
        status = "ctrl.code"
      }
      expect { status = range(200, 300) }
    }
    step "leave-topic" {
      send = jsonencode({ leave = { id = "tn-${seq}-leave-${each.index}", topic = each.value } })
      await {
        json   = { "ctrl.id" = "tn-${seq}-leave-${each.index}" }
        status = "ctrl.code"
      }
      think     = "0s"
      think_max = "${3 * var.pause_scale}s"
    }
  }
  step "close" {
    close = 1000
  }
}

# MeLoadtest: every session logs in as the same user and subscribes to its
# `me` topic, to max out `me` connections; it stays attached for `hold`
# (answering the server's pings) and closes.
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
    send           = jsonencode({ login = { id = "tn-${seq}-login", scheme = "basic", secret = base64encode("${var.username}:${var.password}") } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-login" }
      status = "ctrl.code"
    }
    capture = { token = json("ctrl.params.token") }
  }
  step "sub-me" {
    send           = jsonencode({ sub = { id = "tn-${seq}-sub-me", topic = "me", get = { what = "desc" } } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub-me" }
      status = "ctrl.code"
    }
    expect { status = range(200, 300) }
  }
  step "get-subs" {
    send           = jsonencode({ get = { id = "tn-${seq}-get-subs", topic = "me", what = "sub" } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      # Tinode answers with a meta carrying the subscriptions, or a ctrl 204
      # when there are none: both carry the request's id.
      regex  = "\"id\":\"tn-[0-9]+-get-subs\""
      status = "ctrl.code"
    }
    capture = { subs = json("meta.sub[*].topic") }
  }
  step "stay" {
    hold = "${var.hold}s"
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
    send           = jsonencode({ login = { id = "tn-${seq}-login", scheme = "basic", secret = base64encode("${row.username}:${row.password}") } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-login" }
      status = "ctrl.code"
    }
    capture = { token = json("ctrl.params.token") }
  }
  step "sub-me" {
    send           = jsonencode({ sub = { id = "tn-${seq}-sub-me", topic = "me", get = { what = "desc" } } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub-me" }
      status = "ctrl.code"
    }
    expect { status = range(200, 300) }
  }
  step "get-subs" {
    send           = jsonencode({ get = { id = "tn-${seq}-get-subs", topic = "me", what = "sub" } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      # Tinode answers with a meta carrying the subscriptions, or a ctrl 204
      # when there are none: both carry the request's id.
      regex  = "\"id\":\"tn-[0-9]+-get-subs\""
      status = "ctrl.code"
    }
    capture = { subs = json("meta.sub[*].topic") }
  }
  step "sub-topic" {
    send           = jsonencode({ sub = { id = "tn-${seq}-sub", topic = var.topic, get = { what = "desc sub data del" } } })
    exit_if_failed = true # Gatling: exitHereIfFailed
    await {
      json   = { "ctrl.id" = "tn-${seq}-sub" }
      status = "ctrl.code"
    }
    expect { status = range(200, 300) }
    think     = "0s"
    think_max = "${10 * var.pause_scale}s"
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
    expect { status = range(200, 300) }
  }
  step "stay" {
    think = "${15 * var.pause_scale}s"
  }
  step "leave-topic" {
    send = jsonencode({ leave = { id = "tn-${seq}-leave", topic = var.topic } })
    await {
      json   = { "ctrl.id" = "tn-${seq}-leave" }
      status = "ctrl.code"
    }
    think     = "0s"
    think_max = "${3 * var.pause_scale}s"
  }
  step "close" {
    close = 1000
  }
}

# num_sessions / ramp sessions per second for ramp seconds: exactly
# num_sessions sessions, evenly spread (Gatling's rampUsers(n) during ramp).
# Each session then runs to its end, as Gatling's do: the second stage
# starts nothing and only says how long after the ramp sessions may still
# be running (the schedule's end, past which tressi cuts them).
load {
  model = "open"
  seed  = 1
  stage {
    duration = "${var.ramp}s"
    rate     = var.num_sessions / var.ramp
  }
  stage {
    duration = "${var.session_max + (var.test == "MeLoadtest" ? var.hold : 0)}s"
    rate     = 0
  }
}

# Judged over the whole run, not stopped by one early window: Tinode's
# sample data has a ban (dave banned bob), so bob's sub to their chat is a
# real ctrl 403 that a 2 s window of a few dozen requests would make
# several percent.
thresholds {
  error_rate = 0.01
  abort      = false
}
