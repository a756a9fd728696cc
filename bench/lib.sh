# Shared by bench/run and bench/scaling (sourced, not run). Every load here
# goes to the loopback target this file starts, and every run is bounded by
# `timeout`, so a wedged generator cannot hold the machine.

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$BENCH_DIR/.." && pwd)"

# Cores: the generator and the target never share one, so a generator cannot
# win by starving the server (or lose by being starved).
GEN_CPU="${GEN_CPU:-0}"
TARGET_CPU="${TARGET_CPU:-1}"

# Tasks that may run anywhere and run long or at a higher priority than the
# generator are moved off the generator's core while the script runs, as a
# benchmark host would isolate it, and let run anywhere again when it ends
# (a watcher waits for the script, whatever traps it sets):
# - DAMON's kdamond (this VM's memory monitoring), whose bursts of 30-40 ms
#   held back every generator pinned beside it (a perf record of a 20k req/s
#   run: kdamond.0 in ptep_test_and_clear_young for 40 ms, the loop's sends
#   late meanwhile);
# - every process at a negative nice value, such as this VM's agent (pid 1,
#   process_api, nice -10), whose threads woke every 0.5 s and ran 2-10 ms
#   on the generator's core: the ~1 s stalls of 4-8 ms in a 20k req/s run's
#   send lag were its (perf record -e sched:sched_switch -C 0, matched to the
#   stalls benchlag lists).
# Needs root; where it cannot move them it says so and the figures keep them.
# ISOLATE=0 leaves every task where it is.
MOVED_TASKS=()
isolate_generator_core() {
  [[ "${ISOLATE:-1}" == 1 ]] || return 0
  local pid comm ni
  for pid in $(pgrep '^kdamond' 2>/dev/null) $(ps -eo pid=,ni= | awk '$2 ~ /^-[0-9]+$/ {print $1}'); do
    [[ -r "/proc/$pid/comm" ]] || continue
    comm="$(cat "/proc/$pid/comm" 2>/dev/null)" || continue
    # Per-CPU kernel threads (kworker/0:1, ksoftirqd/0) cannot move; say nothing of them.
    [[ "$comm" == */* ]] && continue
    if taskset -a -pc "$TARGET_CPU" "$pid" >/dev/null 2>&1; then
      MOVED_TASKS+=("$pid")
      log "moved $comm ($pid) to core $TARGET_CPU, off the generator's core $GEN_CPU"
    else
      log "could not move $comm ($pid) off the generator's core $GEN_CPU: what it runs there stays in the figures"
    fi
  done
  ((${#MOVED_TASKS[@]})) || return 0
  (restore_generator_core "$$" >/dev/null 2>&1 &)
}

# restore_generator_core lets the moved tasks run anywhere again once the
# script (pid $1) has ended. It waits in tail, on the target's core: a
# shell loop of `kill -0; sleep 0.5` forked a sleep every 0.5 s, a few ms
# of CPU each on this VM wherever it landed, and those were the stalls
# every ~515 ms in the open model's send lag (perf sched: the loop waiting
# behind bash and sleep on its core).
restore_generator_core() {
  taskset -c "$TARGET_CPU" tail --pid="$1" -f /dev/null 2>/dev/null ||
    while kill -0 "$1" 2>/dev/null; do sleep 5; done
  local pid
  for pid in "${MOVED_TASKS[@]}"; do
    taskset -a -pc "0-$(($(nproc --all) - 1))" "$pid" >/dev/null 2>&1 || true
  done
}

# The peers, pinned to the versions the Go module proxy served when the
# harness was written; wrk comes from Debian.
VEGETA_MOD="github.com/tsenart/vegeta/v12@v12.13.0"
BOMBARDIER_MOD="github.com/codesenberg/bombardier@v1.2.6"
HEY_MOD="github.com/rakyll/hey@v0.1.5"

log() { printf '%s\n' "$*" >&2; }
isolate_generator_core

# ensure_tools installs what is missing: jq and wrk with apt-get, the Go
# peers with go install. A tool that cannot be installed is dropped from the
# run with a message rather than failing the others.
ensure_tools() {
  export PATH="$PATH:/usr/local/go/bin:$(go env GOPATH)/bin"
  local pkgs=()
  command -v jq >/dev/null || pkgs+=(jq)
  command -v wrk >/dev/null || pkgs+=(wrk)
  command -v taskset >/dev/null || pkgs+=(util-linux)
  [[ -x /usr/bin/time ]] || pkgs+=(time)
  command -v curl >/dev/null || pkgs+=(curl)
  if ((${#pkgs[@]})); then
    log "installing ${pkgs[*]} with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
  fi
  command -v vegeta >/dev/null || go install "$VEGETA_MOD"
  command -v bombardier >/dev/null || go install "$BOMBARDIER_MOD"
  command -v hey >/dev/null || go install "$HEY_MOD"
}

# build_bins builds the target, the results reader and the tressi CLI from
# this checkout into $BIN.
build_bins() {
  BIN="$OUT/bin"
  mkdir -p "$BIN"
  (cd "$REPO" &&
    go build -o "$BIN/benchtarget" ./bench/cmd/benchtarget &&
    go build -o "$BIN/benchlag" ./bench/cmd/benchlag &&
    go build -o "$BIN/tressi" ./cmd/tressi)
}

# tressi_ready says whether this checkout's CLI can run plans yet.
tressi_ready() { "${TRESSI_BIN:-$BIN/tressi}" apply --help >/dev/null 2>&1; }

# start_target runs the built-in target pinned to $TARGET_CPU and sets
# TARGET_URL. The EXIT trap stops it however the script ends.
start_target() {
  taskset -c "$TARGET_CPU" "$BIN/benchtarget" --addr 127.0.0.1:0 >"$OUT/target.log" 2>&1 &
  TARGET_PID=$!
  trap stop_target EXIT
  local i
  for i in $(seq 100); do
    TARGET_URL="$(sed -n 's/^listening on //p' "$OUT/target.log")"
    [[ -n "$TARGET_URL" ]] && return 0
    sleep 0.05
  done
  log "the target did not start: $(cat "$OUT/target.log")"
  return 1
}

stop_target() {
  if [[ -n "${TARGET_PID:-}" ]]; then
    kill -INT "$TARGET_PID" 2>/dev/null || true
    wait "$TARGET_PID" 2>/dev/null || true
    TARGET_PID=""
  fi
}

server_requests() { curl -fsS "$TARGET_URL/__stats" | jq .requests; }

# free_port prints a loopback TCP port nobody listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_nginx_tls runs Debian's nginx as an HTTPS target pinned to
# $TARGET_CPU (one worker, keep-alive without a request limit, session
# cache and tickets on, TLS 1.2 and 1.3) with a self-signed certificate
# made now, and sets HTTPS_URL and CA_FILE. Its stub_status, on a plain
# port of its own, counts requests (nginx_requests). Returns 1 when nginx
# or openssl is missing and cannot be installed.
start_nginx_tls() {
  if ! command -v nginx >/dev/null || ! command -v openssl >/dev/null; then
    log "installing nginx-light and openssl with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light openssl >/dev/null || return 1
  fi
  local d="$OUT/nginx" port h2port sport i
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$d/key.pem" -out "$d/cert.pem" 2>/dev/null || return 1
  port="$(free_port)"
  h2port="$(free_port)"
  sport="$(free_port)"
  cat >"$d/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 65s;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:SSL:10m;
  ssl_session_tickets on;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $d/cert.pem;
    ssl_certificate_key $d/key.pem;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$h2port ssl http2;
    ssl_certificate $d/cert.pem;
    ssl_certificate_key $d/key.pem;
    location / { return 200 "ok"; }
  }
  server {
    listen 127.0.0.1:$sport;
    location / { stub_status; }
  }
}
EOF
  taskset -c "$TARGET_CPU" nginx -p "$d" -c "$d/nginx.conf" -e "$d/error.log" &
  NGINX_PID=$!
  trap 'stop_target; stop_nginx' EXIT
  HTTPS_URL="https://127.0.0.1:$port"
  H2_URL="https://127.0.0.1:$h2port"
  NGINX_STATUS="http://127.0.0.1:$sport/"
  CA_FILE="$d/cert.pem"
  for i in $(seq 100); do
    curl -fsS --cacert "$CA_FILE" "$HTTPS_URL/" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  log "nginx did not start: $(tail -3 "$d/error.log")"
  return 1
}

# start_nginx_http runs Debian's nginx as a plain HTTP/1.1 target on
# $TARGET_CPU (one worker, keep-alive without a request limit, no access
# log, a fixed 3-byte body) and sets TARGET_URL; its stub_status counts
# requests (nginx_requests).
start_nginx_http() {
  if ! command -v nginx >/dev/null; then
    log "installing nginx-light with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null || return 1
  fi
  local d="$OUT/nginx" port sport i
  mkdir -p "$d"
  port="$(free_port)"
  sport="$(free_port)"
  cat >"$d/nginx.conf" <<EOF
daemon off;
worker_processes 1;
worker_rlimit_nofile 16384;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 65s;
  server {
    listen 127.0.0.1:$port backlog=4096;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$sport;
    location / { stub_status; }
  }
}
EOF
  taskset -c "$TARGET_CPU" nginx -p "$d" -c "$d/nginx.conf" -e "$d/error.log" &
  NGINX_PID=$!
  trap stop_nginx EXIT
  TARGET_URL="http://127.0.0.1:$port"
  NGINX_STATUS="http://127.0.0.1:$sport/"
  for i in $(seq 100); do
    curl -fsS "$TARGET_URL/" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  log "nginx did not start: $(tail -3 "$d/error.log")"
  return 1
}

stop_nginx() {
  if [[ -n "${NGINX_PID:-}" ]]; then
    kill -QUIT "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
  fi
}

# nginx_requests is nginx's request count, less the one asking for it.
nginx_requests() { curl -fsS "$NGINX_STATUS" | awk 'NR == 3 {print $3 - 1}'; }

# measure NAME SECONDS CMD... runs CMD pinned to $GEN_CPU, killed with SIGINT
# after SECONDS + 30 at most, and prints one line:
#   requests wall_s user_s sys_s maxrss_kb
# where requests is what the target counted during the run: the same meter
# for every generator, whatever each one claims.
measure() {
  local name="$1" secs="$2"
  shift 2
  local before after rc=0
  before="$("${REQUESTS:-server_requests}")"
  taskset -c "$GEN_CPU" /usr/bin/time -f '%e %U %S %M' -o "$RUN/$name.time" \
    timeout -s INT "$((secs + 30))" "$@" >"$RUN/$name.out" 2>"$RUN/$name.err" || rc=$?
  after="$("${REQUESTS:-server_requests}")"
  if ((rc != 0)); then
    log "$name exited $rc: $(tail -3 "$RUN/$name.err")"
  fi
  # /usr/bin/time writes "Command exited with non-zero status N" first on failure.
  echo "$((after - before)) $(tail -1 "$RUN/$name.time")"
}

# run_tool TOOL MODEL LOAD SECS runs one generator (MODEL closed: LOAD users;
# open: LOAD req/s) with its files in $RUN and prints one line:
#   requests wall_s user_s sys_s maxrss_kb p99_ms
run_tool() {
  "$1_$2" "$3" "$4" | tr '\n' ' '
  echo
}

# The generators: TOOL_closed USERS SECS and TOOL_open RATE SECS print the
# measure line, then their own p99 latency in ms.

# to_ms converts a Go or wrk duration ("812.00us", "1.2ms", "3s", "1m") to ms.
to_ms() {
  awk -v d="$1" 'BEGIN {
    n = d + 0; u = d; sub(/^[0-9.]+/, "", u)
    if (u == "ns") n /= 1e6; else if (u == "us" || u == "µs") n /= 1e3
    else if (u == "s") n *= 1e3; else if (u == "m") n *= 6e4
    printf "%.3f\n", n }'
}

wrk_closed() {
  measure wrk "$2" wrk -t1 -c"$1" -d"$2"s --latency "$TARGET_URL/"
  to_ms "$(awk '/Latency Distribution/ {f = 1} f && $1 == "99%" {print $2; exit}' "$RUN/wrk.out")"
}

# bombardier cannot be given a CA: over https it skips verification (-k).
bombardier_closed() {
  measure bombardier "$2" bombardier ${CA_FLAG:+-k} -c "$1" -d "$2"s -l -o json -p r "$TARGET_URL/"
  jq '.result.latency.percentiles["99"] / 1000' "$RUN/bombardier.out"
}

bombardier_open() {
  measure bombardier "$2" bombardier ${CA_FLAG:+-k} -c "${OPEN_CONNS:-50}" -r "$1" -d "$2"s -l -o json -p r "$TARGET_URL/"
  jq '.result.latency.percentiles["99"] / 1000' "$RUN/bombardier.out"
}

hey_closed() {
  measure hey "$2" hey -z "$2"s -c "$1" "$TARGET_URL/"
  # hey v0.1.5 prints "99%% in 0.0045 secs" (a doubled format verb).
  awk '$1 ~ /^99%/ && $2 == "in" {printf "%.3f\n", $3 * 1000; exit}' "$RUN/hey.out"
}

# vegeta gets the same connection budget as the others: with its defaults
# (unbounded workers and connections) it opened 1,500 connections on one core
# at 20k req/s and managed 500 req/s with a 3 s p99.
vegeta_open() {
  echo "GET $TARGET_URL/" >"$RUN/vegeta.targets"
  measure vegeta "$2" vegeta attack -targets "$RUN/vegeta.targets" -rate "$1" -duration "$2"s \
    -timeout 5s -max-connections "${OPEN_CONNS:-50}" -max-workers "${OPEN_CONNS:-50}" \
    -output "$RUN/vegeta.bin"
  vegeta report -type json "$RUN/vegeta.bin" >"$RUN/vegeta.json"
  jq '.latencies["99th"] / 1e6' "$RUN/vegeta.json"
}

tressi_closed() {
  measure tressi "$2" "${TRESSI_BIN:-$BIN/tressi}" apply "$BENCH_DIR/plans/${PLAN_PREFIX:-}closed.hcl" --quiet --out "$RUN/tressi" \
    -var "base_url=$TARGET_URL" -var "users=$1" -var "duration=$2s" ${CA_FLAG:+-var "ca_file=$CA_FLAG"}
  tressi_p99
}

tressi_open() {
  measure tressi "$2" "${TRESSI_BIN:-$BIN/tressi}" apply "$BENCH_DIR/plans/${PLAN_PREFIX:-}open.hcl" --quiet --out "$RUN/tressi" ${CA_FLAG:+-var "ca_file=$CA_FLAG"} \
    -var "base_url=$TARGET_URL" -var "rate=$1" -var "duration=$2s" -var "connections=${OPEN_CONNS:-50}"
  tressi_p99
}

# tressi_scenario RATE SECS: the scenario plan (log in, 10 × /me) at RATE
# requests per second.
tressi_scenario() {
  measure tressi "$2" "${TRESSI_BIN:-$BIN/tressi}" apply "$BENCH_DIR/plans/scenario.hcl" --quiet --out "$RUN/tressi" \
    -var "base_url=$TARGET_URL" -var "rate=$1" -var "duration=$2s" -var "connections=${OPEN_CONNS:-50}"
  tressi_p99
}

# tressi_bigbody ENGINE SECS: 60 MiB bodies at $BIG_RATE req/s on ENGINE.
tressi_bigbody() {
  measure tressi "$2" "${TRESSI_BIN:-$BIN/tressi}" apply "$BENCH_DIR/plans/bigbody.hcl" --quiet --out "$RUN/tressi" \
    --engine "$1" -var "base_url=$TARGET_URL" -var "rate=${BIG_RATE:-20}" -var "duration=$2s"
  tressi_p99
}

# HTTP/2 (bench/h2, bench/run j and k): H2_CONNS connections of
# H2_STREAMS streams each, against $TARGET_URL. h2load's --rps is per
# client, so the clients share RATE.
tressi_h2closed() {
  measure tressi "$2" "${TRESSI_BIN:-$BIN/tressi}" apply "$BENCH_DIR/plans/h2-closed.hcl" --quiet --out "$RUN/tressi" \
    --var "base_url=$TARGET_URL" --var "users=$1" --var "duration=$2s" \
    --var "connections=${H2_CONNS:-10}" --var "max_streams=${H2_STREAMS:-10}"
  tressi_p99
}
tressi_h2open() {
  measure tressi "$2" "${TRESSI_BIN:-$BIN/tressi}" apply "$BENCH_DIR/plans/h2-open.hcl" --quiet --out "$RUN/tressi" \
    --var "base_url=$TARGET_URL" --var "rate=$1" --var "duration=$2s" \
    --var "connections=${H2_CONNS:-10}" --var "max_streams=${H2_STREAMS:-10}"
  tressi_p99
}
h2load_h2closed() {
  measure h2load "$2" h2load -c "${H2_CONNS:-10}" -m "${H2_STREAMS:-10}" -D "$2" "$TARGET_URL/"
  h2load_p99
}
h2load_h2open() {
  measure h2load "$2" h2load -c "${H2_CONNS:-10}" -m "${H2_STREAMS:-10}" --rps "$(($1 / ${H2_CONNS:-10}))" -D "$2" "$TARGET_URL/"
  h2load_p99
}

# h2load prints no percentiles: its "time for request" line gives min, max,
# mean, sd; the p99 column reports the max (an upper bound) instead.
h2load_p99() {
  awk '$1 == "time" && $3 == "request:" {print $5}' "$RUN/h2load.out" | while read -r v; do to_ms "$v"; done
}

# ensure_h2load installs h2load (Debian's nghttp2-client) when missing;
# 1 when it cannot.
ensure_h2load() {
  command -v h2load >/dev/null && return 0
  log "installing nghttp2-client (h2load) with apt-get"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client >/dev/null && command -v h2load >/dev/null
}

# tressi_p99 reads the corrected p99 from the run's report.
tressi_p99() {
  if "$BIN/tressi" report "$(tressi_run_dir)" --format json >"$RUN/tressi.json" 2>"$RUN/tressi.report.err"; then
    jq '.latency_ms.p99' "$RUN/tressi.json"
  else
    echo nan
  fi
}

# tressi_run_dir is the directory holding the run's results.arrow, whether
# --out named the run directory itself or its parent.
tressi_run_dir() {
  local f
  f="$(find "$RUN/tressi" -name results.arrow -print -quit 2>/dev/null)"
  dirname "${f:-$RUN/tressi/results.arrow}"
}

# median reads numbers, one per line, and prints their median.
median() {
  sort -g | awk '{v[NR] = $1} END {
    if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]
    else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The tressi-only comparisons of bench/run (e) and (f) name their rows by
# plan and engine: run_tool TOOL MODEL maps them here.
plain_open() { tressi_open "$@"; }

# BEFORE=PATH (bench/run, bench/ws): another tressi binary, such as one
# built from main before a change, runs as the generator "before" right
# after "tressi" in every round, with the same plans, so the two alternate.
before_closed() { TRESSI_BIN="$BEFORE" tressi_closed "$@"; }
before_open() { TRESSI_BIN="$BEFORE" tressi_open "$@"; }
before_h2closed() { TRESSI_BIN="$BEFORE" tressi_h2closed "$@"; }
before_h2open() { TRESSI_BIN="$BEFORE" tressi_h2open "$@"; }
scenario_scenario() { tressi_scenario "$@"; }
loop_bigbody() { tressi_bigbody loop "$2"; }
fasthttp_bigbody() { tressi_bigbody fasthttp "$2"; }

# start_rows sets up the run's tables: rows.tsv (scenario tool round
# requests rps cpu_us_per_req p99_ms maxrss_kb) and extra.tsv (scenario
# tool round key value: bytes per request, send lag).
start_rows() {
  ROWS="$OUT/rows.tsv"
  EXTRA="$OUT/extra.tsv"
  : >"$ROWS"
  : >"$EXTRA"
}

# one SCENARIO TOOL MODEL LOAD SECS ROUND runs a generator once and records it.
one() {
  local scenario="$1" tool="$2" model="$3" load="$4" secs="$5" round="$6"
  RUN="$OUT/$scenario/$tool-$round"
  mkdir -p "$RUN"
  local req wall user sys rss p99
  read -r req wall user sys rss p99 < <(run_tool "$tool" "$model" "$load" "$secs")
  awk -v s="$scenario" -v t="$tool" -v r="$round" -v n="$req" -v d="$secs" \
    -v u="$user" -v y="$sys" -v p="$p99" -v m="$rss" 'BEGIN {
      cpu = n > 0 ? (u + y) * 1e6 / n : "nan"
      if (p ~ /^[0-9.e+-]+$/) p = sprintf("%.3f", p); else p = "nan"
      printf "%s\t%s\t%s\t%d\t%.0f\t%.2f\t%s\t%d\n", s, t, r, n, n / d, cpu, p, m }' >>"$ROWS"
  log "$(tail -1 "$ROWS")"
  sleep 1 # let the target settle and sockets drain between generators
}

# column SCENARIO TOOL FIELD prints the median of FIELD (1-based in rows.tsv)
# over the rounds; extra SCENARIO TOOL KEY the median of an extra.tsv value.
column() { awk -F'\t' -v s="$1" -v t="$2" -v f="$3" '$1 == s && $2 == t {print $f}' "$ROWS" | median; }
extra() { awk -F'\t' -v s="$1" -v t="$2" -v k="$3" '$1 == s && $2 == t && $4 == k {print $5}' "$EXTRA" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "n/a" }'; }

# verdict NAME VALUE OP LIMIT prints one "must show" line: PASS when VALUE
# OP LIMIT holds (OP is <= or >=), FAIL otherwise or without a value.
verdict() {
  awk -v n="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN {
    ok = v ~ /^[0-9.e+-]+$/ && ((op == "<=" && v + 0 <= l + 0) || (op == ">=" && v + 0 >= l + 0))
    printf "%-4s %-58s %8s %s %s\n", ok ? "PASS" : "FAIL", n, v, op, l }'
}

# load_average is the machine's 1, 5 and 15 minute load: figures taken
# beside other work are noise, and the summaries say how much there was.
load_average() { cut -d' ' -f1-3 /proc/loadavg; }
