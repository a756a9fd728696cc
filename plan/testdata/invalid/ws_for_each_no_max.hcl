# want: 10:3 Missing max
target "t" { url = "ws://x" }
scenario "s" {
  step "a" { connect = "/ws" }
  step "b" {
    send    = "x"
    await { regex = "." }
    capture = { items = json("list") }
  }
  step "c" {
    for_each = captured.items
    step "d" { send = each.value }
  }
}
load {
  stage {
    duration = "1s"
    rate     = 1
  }
}
