#!/usr/bin/env bash
# Runs examples/tinode against a real Tinode server on loopback: Tinode
# v0.22.13 built from the Go module proxy (nothing of Tinode is in this
# repository), PostgreSQL from Debian, Tinode's own sample data
# (tinode-db/data.json: alice/alice123, bob/bob123, … and their topics) plus
# load accounts made the way Tinode's load test makes them
# (tinode-db/generate_dataset.py: user0/user0123 …), and the three Gatling
# tests of the example, each checked.
#
#   examples/tinode/real-server.sh            # up, the three tests, checks, down
#   examples/tinode/real-server.sh up DIR     # only start it; DIR/env says where
#   examples/tinode/real-server.sh down DIR   # stop what `up DIR` started
#
# Settings (environment): TLS=1 serves Tinode over TLS with a self-signed
# certificate for 127.0.0.1 and runs the tests over wss:// (tressi trusts
# it through SSL_CERT_FILE; this needs a tressi with wss:// sessions),
# SESSIONS (100) and RAMP (20 s) per test,
# PAUSE_SCALE (1: Gatling's pauses), HOLD (MeLoadtest, 10 s), LOAD_USERS
# (300 generated accounts), TRESSI (a tressi binary; default: go run
# ./cmd/tressi), TINODE_CACHE (where the build is kept: ~/.cache/tressi/tinode-v0.22.13).
#
# Exit status: 0 all checks passed; 1 a check failed; 3 the server could not
# be set up here (no apt-get, no network, a failed build): the caller may
# skip rather than fail (examples/tinode_real_test.go does).
set -euo pipefail

VERSION=v0.22.13
REPO=$(cd "$(dirname "$0")/../.." && pwd)
# Outside the repository: Tinode's sources are not gofmt-clean, and gofmt -l . must stay empty.
CACHE=${TINODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tressi/tinode-$VERSION}
SESSIONS=${SESSIONS:-100}
RAMP=${RAMP:-20}
PAUSE_SCALE=${PAUSE_SCALE:-1}
HOLD=${HOLD:-10}
LOAD_USERS=${LOAD_USERS:-300}
TLS=${TLS:-0}
API_KEY=AQEAAAABAAD_rAp4DJh05a1HAwFT3A6K # Tinode's default key, as the example's

say() { echo "tinode: $*" >&2; }
cannot() { say "cannot set up: $*"; exit 3; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# as_db runs a command as the database's owner: PostgreSQL refuses root.
as_db() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

install_packages() {
  local need=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  /usr/bin/python3 -c 'import numpy' 2>/dev/null || need+=(python3-numpy)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  [ "$TLS" = 1 ] && ! command -v openssl >/dev/null 2>&1 && need+=(openssl)
  [ ${#need[@]} = 0 ] && return
  command -v apt-get >/dev/null 2>&1 || cannot "no apt-get to install ${need[*]}"
  say "installing ${need[*]} from Debian"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null) \
    || cannot "apt-get install ${need[*]} failed"
}

# build compiles Tinode's server and tinode-db with the PostgreSQL adapter,
# once: the module's source is copied out of the read-only module cache and
# built there, outside tressi's module.
build() {
  if [ -x "$CACHE/bin/server" ] && [ -x "$CACHE/bin/tinode-db" ] && [ -f "$CACHE/src/tinode-db/data.json" ]; then
    return
  fi
  say "building Tinode $VERSION (postgres) from the Go module proxy"
  local dir
  dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/tinode/chat@$VERSION" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])') || cannot "go mod download github.com/tinode/chat@$VERSION failed"
  rm -rf "$CACHE/src" && mkdir -p "$CACHE/bin" && cp -r "$dir" "$CACHE/src" && chmod -R u+w "$CACHE/src"
  (cd "$CACHE/src" && GOFLAGS=-mod=mod GOWORK=off go build -tags postgres -o "$CACHE/bin/server" ./server \
    && GOFLAGS=-mod=mod GOWORK=off go build -tags postgres -o "$CACHE/bin/tinode-db" ./tinode-db) \
    || cannot "building Tinode failed"
}

up() {
  local run=$1
  install_packages
  build
  mkdir -p "$run"
  run=$(cd "$run" && pwd)
  local pgbin pgport port pgdata
  pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
  # The cluster lives where its owner can reach it, whatever run's parents allow.
  pgdata=$(mktemp -d /tmp/tressi-tinode-pg.XXXXXX)
  chmod 755 "$pgdata"
  [ "$(id -u)" = 0 ] && chown postgres "$pgdata"
  echo "$pgdata" >"$run/pgdata"
  pgport=$(free_port)
  as_db "$pgbin/initdb" -D "$pgdata/data" -A trust -U postgres >"$run/initdb.log" 2>&1 || cannot "initdb failed (see $run/initdb.log)"
  # fsync off: a throwaway cluster, and tinode-db's bulk load is 10× faster.
  as_db "$pgbin/pg_ctl" -D "$pgdata/data" -l "$pgdata/pg.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $pgdata -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$pgdata/pg.log" >&2; exit 1; }
  echo "$pgbin" >"$run/pgbin"

  # Tinode's config for loopback only: no TLS, no push, no gRPC, no cluster,
  # no plugins; max_subscriber_count raised so SingleTopicLoadtest's
  # accounts may all join one group (Tinode's default is 128).
  mkdir -p "$run/uploads"
  local tls='{"enabled": false}' scheme=http
  if [ "$TLS" = 1 ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$run/tls.key" -out "$run/tls.crt" -days 2 \
      -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null || cannot "openssl could not make a certificate"
    tls="{\"enabled\": true, \"http_redirect\": \"\", \"cert_file\": \"$run/tls.crt\", \"key_file\": \"$run/tls.key\"}"
    scheme=https
  fi
  cat >"$run/tinode.conf" <<EOF
{
  "listen": "127.0.0.1:0",
  "grpc_listen": "",
  "api_key_salt": "T713/rYYgW7g4m3vG6zGRh7+FM1t0T8j13koXScOAj4=",
  "max_message_size": 262144,
  "max_subscriber_count": 4096,
  "max_tag_count": 16,
  "media": {"use_handler": "fs", "max_size": 8388608, "gc_period": 60, "gc_block_size": 100,
            "handlers": {"fs": {"upload_dir": "$run/uploads"}}},
  "tls": $tls,
  "auth_config": {
    "basic": {"add_to_tags": true, "min_login_length": 4, "min_password_length": 6},
    "token": {"expire_in": 1209600, "serial_num": 1, "key": "wfaY2RgF2S1OQI/ZlK+LSrp1KB2jwAdGAIHQ7JZn+Kc="}
  },
  "store_config": {
    "uid_key": "la6YsO+bNX/+XIkOqc5Svw==",
    "max_results": 1024,
    "use_adapter": "postgres",
    "adapters": {"postgres": {"User": "postgres", "Passwd": "postgres", "Host": "127.0.0.1", "Port": "$pgport",
                              "DBName": "tinode", "max_open_conns": 50, "max_idle_conns": 50,
                              "conn_max_lifetime": 60, "sql_timeout": 10}}
  },
  "acc_gc_config": {"enabled": false},
  "push": [],
  "webrtc": {"enabled": false},
  "plugins": []
}
EOF

  # Sample data plus generated load accounts, in one load (tinode-db fills a
  # database only when it creates it). data.json names its photos relative
  # to itself, so the merged file sits beside it.
  say "loading the sample data and $LOAD_USERS generated accounts"
  local db="$CACHE/src/tinode-db" merged
  merged="$db/tressi-$(basename "$run")-$$.json"
  (cd "$db" && /usr/bin/python3 generate_dataset.py --num_users "$LOAD_USERS" >"$run/generated.json") \
    || cannot "generate_dataset.py failed"
  /usr/bin/python3 - "$db/data.json" "$run/generated.json" "$merged" <<'EOF'
import json, sys
sample, generated = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for key in ("users", "grouptopics", "p2psubs", "groupsubs"):
    sample[key] = sample.get(key, []) + generated.get(key, [])
json.dump(sample, open(sys.argv[3], "w"))
EOF
  (cd "$db" && "$CACHE/bin/tinode-db" --config="$run/tinode.conf" --data="$merged" --reset >"$run/tinode-db.out" 2>"$run/tinode-db.log") \
    || { rm -f "$merged"; tail -5 "$run/tinode-db.log" >&2; exit 1; }
  rm -f "$merged"
  # tinode-db prints grp;NAME;ID for each group: the sample group *ABC
  # ("Let's talk about flowers", alice's) is SingleTopicLoadtest's topic.
  local topic
  topic=$(awk -F';' '$1 == "grp" && $2 == "*ABC" { print $3 }' "$run/tinode-db.out")
  [ -n "$topic" ] || { say "tinode-db printed no group *ABC"; exit 1; }
  # The accounts: Tinode's sample users (as examples/tinode/users.csv) and
  # the generated ones, username,password as Gatling's users.csv.
  cp "$REPO/examples/tinode/users.csv" "$run/sample.csv"
  { echo username,password; for ((i = 0; i < LOAD_USERS; i++)); do echo "user$i,user${i}123"; done; } >"$run/load.csv"

  port=$(free_port)
  (cd "$run" && exec "$CACHE/bin/server" --config="$run/tinode.conf" --listen="127.0.0.1:$port" --static_data= \
    >"$run/server.log" 2>&1 </dev/null) &
  echo $! >"$run/server.pid"
  for _ in $(seq 100); do
    if curl -sk -o /dev/null "$scheme://127.0.0.1:$port/v0/channels"; then
      break
    fi
    sleep 0.1
  done
  curl -sk -o /dev/null "$scheme://127.0.0.1:$port/v0/channels" || { tail -20 "$run/server.log" >&2; exit 1; }
  cat >"$run/env" <<EOF
BASE_URL=$scheme://127.0.0.1:$port
TOPIC=$topic
SAMPLE_ACCOUNTS=$run/sample.csv
LOAD_ACCOUNTS=$run/load.csv
EOF
  say "Tinode $VERSION listening on $scheme://127.0.0.1:$port (single topic $topic); $run/env"
}

down() {
  local run=$1
  if [ -f "$run/server.pid" ]; then
    local pid
    pid=$(cat "$run/server.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$run/server.pid"
  fi
  if [ -f "$run/pgdata" ]; then
    local pgdata
    pgdata=$(cat "$run/pgdata")
    as_db "$(cat "$run/pgbin")/pg_ctl" -D "$pgdata/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$pgdata" "$run/pgdata"
  fi
}

tressi() {
  if [ "$TLS" = 1 ] && [ -n "${RUN:-}" ]; then
    export SSL_CERT_FILE=$RUN/tls.crt # the self-signed certificate up made
  fi
  if [ -n "${TRESSI:-}" ]; then
    "$TRESSI" "$@"
  else
    (cd "$REPO" && go run ./cmd/tressi "$@")
  fi
}

# check judges one run: exit status, every slot's rows (tressi verify), every
# answer matched (no await_timeout, ws_closed, ws_protocol), the statuses.
check() {
  local name=$1 code=$2 out=$3 fanout=$4
  local ok=1
  [ "$code" = 0 ] || { say "$name: tressi apply exited $code"; ok=0; }
  [ -f "$out/results.arrow" ] || { say "$name: no run in $out"; return 1; }
  # Only results.arrow's line: verify also reloads the plan from its sources,
  # which fails for accounts given by an absolute path outside the plan's
  # directory (as here), though the run has them.
  local verified
  verified=$(tressi verify "$out" 2>/dev/null || true)
  grep -q '^ok  *results.arrow: .*every one of the' <<<"$verified" \
    || { say "$name: tressi verify: a slot's rows are missing or damaged"; ok=0; }
  tressi report "$out" --format json >"$out/report.json"
  python3 - "$name" "$out/report.json" "$fanout" <<'EOF' || ok=0
import json, sys
name, rep, fanout = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3] == "1"
bad = []
kinds = {k: n for k, n in rep["error_kinds"].items() if k not in ("no_item", "skipped")}
if kinds:
    bad.append(f"rows with errors (replies not matched or not sent): {kinds}")
# Answers other than the upgrade, the close and a 2xx ctrl: only the real
# server's refusals of the sample data (403: dave banned bob) and contention
# (503 locked), each of which ended its session (exit_if_failed).
other = {s: n for s, n in rep["status"].items() if s not in ("101", "1000") and not 200 <= int(s) <= 299}
if set(other) - {"403", "503"}:
    bad.append(f"unexpected statuses: {other}")
ws = rep["websocket"]
if ws["sessions"]["started"] != ws["sessions"]["connected"]:
    bad.append(f"sessions started {ws['sessions']['started']}, connected {ws['sessions']['connected']}")
fan = ws.get("fanout") or {}
if fanout and not fan.get("delivered"):
    bad.append("no message reached another session")
lat = fan.get("delivery_latency_ns") or {}
ms = lambda k: f"{lat[k] / 1e6:.1f}" if k in lat else "-"
print(f"{name}: {rep['requests']} requests, {rep['ok']} ok, statuses {rep['status']}, "
      f"not requests {rep['error_kinds']}, sessions {ws['sessions']}, "
      f"deliveries {fan.get('delivered', 0)} (p50 {ms('p50')} ms, p99 {ms('p99')} ms), "
      f"unmatched frames {ws['messages'].get('unmatched')}", file=sys.stderr)
for b in bad:
    print(f"{name}: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
  [ $ok = 1 ]
}

RUN=
all() {
  RUN=$(mktemp -d /tmp/tressi-tinode.XXXXXX)
  trap 'down "$RUN"' EXIT
  local run=$RUN
  up "$run"
  # shellcheck disable=SC1091
  . "$run/env"
  local failed=0 common=(--var "base_url=$BASE_URL" --var "num_sessions=$SESSIONS" --var "ramp=$RAMP" --var "pause_scale=$PAUSE_SCALE")
  for t in Loadtest:sample Loadtest:load MeLoadtest:sample SingleTopicLoadtest:load; do
    local test=${t%%:*} accounts=$LOAD_ACCOUNTS fanout=0 code=0
    [ "${t##*:}" = sample ] && accounts=$SAMPLE_ACCOUNTS
    [ "$test" = SingleTopicLoadtest ] && fanout=1
    local out="$run/runs/$test-${t##*:}"
    say "$test (${t##*:} accounts): $SESSIONS sessions over ${RAMP}s"
    tressi apply "$REPO/examples/tinode" "${common[@]}" --var "test=$test" --var "accounts=$accounts" \
      --var "topic=$TOPIC" --var "hold=$HOLD" -q -o "$out" || code=$?
    check "$test-${t##*:}" "$code" "$out" "$fanout" || failed=1
  done
  [ $failed = 0 ] && say "all checks passed" || say "some checks failed; the runs are in $run/runs"
  return $failed
}

case "${1:-all}" in
  up) up "${2:?usage: $0 up DIR}" ;;
  down) down "${2:?usage: $0 down DIR}" ;;
  all) all ;;
  *) echo "usage: $0 [all | up DIR | down DIR]" >&2; exit 2 ;;
esac
