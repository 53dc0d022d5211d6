#!/usr/bin/env bash
# Sidecar load benchmark (issues 3 and 4). A benchmark, not a test: ./mvnw verify never runs it.
#
# Runs the same MCP workloads in ONE run on this machine against
#   direct  the canned upstream (dev.tally.bench.load.CannedUpstream),
#   nginx   nginx as a plain reverse proxy (proxy_pass, upstream keep-alive),
#   tally   the Tally sidecar on the memory store,
#   tally-journal  the Tally sidecar on the journal store (side-effecting workloads only),
#   tally-pg, tally-pg2  (when named in SIDECARS) one or two sidecars on one real PostgreSQL
#           (side-effecting workloads only; two replicas are driven by two wrk processes at once),
# interleaving the contenders round by round after a warm-up, and prints a report
# (median of per-round ratios with min-max, CPU per request from /proc, p50/p99).
#
#   bench/load/run.sh            # the full benchmark (~30 minutes)
#   bench/load/run.sh tune       # sidecar knobs: event loops 1 vs 2, NIO vs epoll (~6 minutes)
#   QUICK=1 bench/load/run.sh    # a short smoke run of the harness (numbers meaningless)
#
# Knobs (environment): ROUNDS (3), SAMPLE (8 s), PACED_SAMPLE (40 s, the fixed-rate phases' samples),
# WARMUP_FIRST (20 s), WARMUP (10 s), CONNS (64),
# THREADS (2), PACED_CONNS (16), PACED_DELAY_MS (5), SIDECAR_LOOPS (0 = sidecar default),
# SIDECAR_NATIVE (0|1), NGINX_WORKERS (auto), PHASES, PIN_WRK (cpu list for wrk, e.g. 0; default
# unpinned), PROFILE (1: JFR recording of each sidecar, top frames in the report), PORT_BASE
# (18300), OUT (bench/target/load-<time>), BUILD (1: rebuild the jars even if present),
# PG_DURABLE (on: PostgreSQL with fsync and synchronous_commit, as deployed; off: neither),
# PG_POOL (the postgres stores' pool_size unless a contender names one; empty = the default),
# PG_SETTINGS (more server settings, "name=value ..."), SIDECAR_JVM (the sidecars' JVM options,
# default "-Xms1g -Xmx1g"), JOURNAL_JVM (the same for journal-store sidecars, default "-Xms3g
# -Xmx3g -XX:MaxTenuringThreshold=0": they keep every execution of the run in memory), JVM_<contender> (one contender's JVM options instead, "-" in its name
# written "_", e.g. JVM_tally_zgc="-Xms1g -Xmx1g -XX:+UseZGC"), JAVA_<contender> (its java
# executable instead of the java on PATH), CONFIG_<contender> (its Tally config file instead of
# load/tally-bench.yaml), ENV_<contender> (more environment variables for that contender only,
# "NAME=value ...", e.g. ENV_otel="OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318"), KEEP_STORES (1: keep the sidecars' journal and audit directories under OUT;
# by default they are removed at the end, after the report), PERF (1: `perf record` of the whole
# machine (cpu-clock samples) during each measured saturation sample; the report lists
# CPU by command (threads by name) and kernel symbol: where a contender's cost goes outside Java).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/load"
MODE=${1:-full}
ROUNDS=${ROUNDS:-3}
SAMPLE=${SAMPLE:-8}
# A p99 at ~3,000 req/s needs a window longer than the sidecar's young-GC cycle (7-30 s there):
# an 8 s window measures whether a pause happened to fall in it (bench/README.md, session 5).
PACED_SAMPLE=${PACED_SAMPLE:-40}
WARMUP_FIRST=${WARMUP_FIRST:-20}
WARMUP=${WARMUP:-10}
CONNS=${CONNS:-64}
THREADS=${THREADS:-2}
PACED_CONNS=${PACED_CONNS:-16}
PACED_DELAY_MS=${PACED_DELAY_MS:-5}
SIDECAR_LOOPS=${SIDECAR_LOOPS:-0}
SIDECAR_NATIVE=${SIDECAR_NATIVE:-0}
NGINX_WORKERS=${NGINX_WORKERS:-auto}
PORT_BASE=${PORT_BASE:-18300}
PIN_WRK=${PIN_WRK:-}
PROFILE=${PROFILE:-0}
PERF=${PERF:-0}
STORM_CLIENTS=${STORM_CLIENTS:-64}
PG_DURABLE=${PG_DURABLE:-on}
PG_POOL=${PG_POOL:-}
PG_SETTINGS=${PG_SETTINGS:-}
SIDECAR_JVM=${SIDECAR_JVM:--Xms1g -Xmx1g}
# The journal store keeps every execution of the run in memory (24 h retention) and refuses new
# calls once they take half the heap: ~500,000 executions at 1 GB. A full run at ~15,000 calls/s
# creates over a million (at 2 GB the storms of the session-6 run met the bound), hence 3 GB.
# Survivors are promoted at once, as config/README.md recommends for the journal store.
JOURNAL_JVM=${JOURNAL_JVM:--Xms3g -Xmx3g -XX:MaxTenuringThreshold=0}
if [[ ${QUICK:-0} == 1 ]]; then
  ROUNDS=${QUICK_ROUNDS:-2} SAMPLE=2 PACED_SAMPLE=2 WARMUP_FIRST=2 WARMUP=1
fi
OUT=${OUT:-$ROOT/bench/target/load-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
SIDECAR_JAR="$ROOT/sidecar/target/tally-sidecar.jar"
BENCH_JAR="$ROOT/bench/target/tally-bench.jar"
NATIVE_CP=$(ls "$ROOT"/bench/target/native-transport/*.jar 2>/dev/null | tr '\n' ':' || true)

# Sidecar contenders: name=store:eventLoops:native[:jar] (store: memory | journal | postgres |
# postgres2 = two replicas on one database, either optionally /N for a pool of N connections per
# replica; eventLoops 0 = the sidecar's default; jar: another build of tally-sidecar.jar, for
# experiments). Every postgres contender gets its own database on the one PostgreSQL server the
# run starts, e.g.
#   SIDECARS="tally=memory:0:0 tally-journal=journal:0:0 tally-pg=postgres:0:0 tally-pg2=postgres2:0:0"

if [[ $MODE == tune ]]; then
  SIDECARS=${SIDECARS:-"tally-l1=memory:1:0 tally-l2=memory:2:0 tally-l1-epoll=memory:1:1 tally-l2-epoll=memory:2:1"}
  PHASES=${PHASES:-"lookup effect"}
else
  SIDECARS=${SIDECARS:-"tally=memory:$SIDECAR_LOOPS:$SIDECAR_NATIVE tally-journal=journal:$SIDECAR_LOOPS:$SIDECAR_NATIVE"}
  PHASES=${PHASES:-"list lookup effect paced-lookup paced-effect storm storm-keyed"}
fi

log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- prerequisites
ensure_tools() {
  if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    log "installing wrk and nginx (Debian packages)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx >/dev/null
  fi
  command -v curl >/dev/null || die "curl is required"
}

ensure_jars() {
  if [[ ${BUILD:-0} == 1 || ! -f $SIDECAR_JAR || ! -f $BENCH_JAR ]]; then
    log "building tally-sidecar.jar and tally-bench.jar"
    (cd "$ROOT" && ./mvnw -B -ntp -q -pl sidecar,bench -am package -DskipTests)
    NATIVE_CP=$(ls "$ROOT"/bench/target/native-transport/*.jar | tr '\n' ':')
  fi
}

# ---------------------------------------------------------------- processes
PIDS=()
PG_JAVA=
PG_PID=
stop_pid() { # pid signal: signals it, waits up to 10 s, then SIGKILL
  kill "-$2" "$1" 2>/dev/null || return 0
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done
  kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$p" 2>/dev/null || true
  done
  # PostgreSQL last, after its clients: its JVM stops the server; the postmaster itself (started
  # by that JVM, not a child of this script) only if it outlived the JVM.
  [[ -n $PG_JAVA ]] && stop_pid "$PG_JAVA" TERM
  [[ -n $PG_PID ]] && stop_pid "$PG_PID" INT
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_http() { # url seconds pid log
  local i
  for i in $(seq 1 $(($2 * 5))); do
    curl -s -o /dev/null -f -m 2 "$1" && return 0
    kill -0 "$3" 2>/dev/null || die "process $3 ended: $(tail -3 "$4")"
    sleep 0.2
  done
  die "$1 did not answer within $2 s"
}

declare -A URL PIDOF ADMIN KIND REPLICAS
UP_PORT=$PORT_BASE
NGINX_PORT=$((PORT_BASE + 1))

start_upstream() {
  port_free "$UP_PORT" || die "port $UP_PORT is taken (set PORT_BASE)"
  java -Xms256m -Xmx256m -cp "$BENCH_JAR${NATIVE_CP:+:$NATIVE_CP}" \
    dev.tally.bench.load.CannedUpstream --port "$UP_PORT" --loops 2 --native \
    >"$OUT/upstream.log" 2>&1 &
  PIDS+=($!)
  PIDOF[direct]=$!
  URL[direct]="http://127.0.0.1:$UP_PORT/mcp"
  KIND[direct]=direct
  wait_http "http://127.0.0.1:$UP_PORT/count" 60 "${PIDOF[direct]}" "$OUT/upstream.log"
  log "upstream: $(head -1 "$OUT/upstream.log")"
}

start_nginx() {
  port_free "$NGINX_PORT" || die "port $NGINX_PORT is taken (set PORT_BASE)"
  mkdir -p "$OUT/nginx/tmp"
  sed -e "s|@WORKERS@|$NGINX_WORKERS|" -e "s|@DIR@|$OUT/nginx|g" \
    -e "s|@PORT@|$NGINX_PORT|" -e "s|@UPSTREAM@|127.0.0.1:$UP_PORT|" \
    "$HERE/nginx.conf.in" >"$OUT/nginx/nginx.conf"
  nginx -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -e "$OUT/nginx/error.log" &
  PIDS+=($!)
  PIDOF[nginx]=$!
  URL[nginx]="http://127.0.0.1:$NGINX_PORT/mcp"
  KIND[nginx]=nginx
  wait_http "http://127.0.0.1:$NGINX_PORT/count" 30 "${PIDOF[nginx]}" "$OUT/nginx/error.log"
}

# One PostgreSQL server for the run (dev.tally.bench.load.BenchPostgres), a database per postgres
# contender; the sidecars read the password from a file (?password_file=), never a command line.
start_postgres() { # databases...
  local dbs=() d
  for d in "$@"; do dbs+=(--database "$d"); done
  for d in $PG_SETTINGS; do dbs+=(--set "$d"); done
  head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$OUT/pg.password"
  chmod 600 "$OUT/pg.password"
  java -Xmx128m -cp "$BENCH_JAR" dev.tally.bench.load.BenchPostgres --dir "$OUT/pg" \
    --password-file "$OUT/pg.password" --fsync "$PG_DURABLE" "${dbs[@]}" >"$OUT/postgres.log" 2>&1 &
  PG_JAVA=$!
  local i line
  for i in $(seq 1 600); do
    line=$(grep -m1 '^POSTGRES ' "$OUT/postgres.log" || true)
    [[ -n $line ]] && break
    kill -0 "$PG_JAVA" 2>/dev/null || die "PostgreSQL did not start: $(tail -3 "$OUT/postgres.log")"
    sleep 0.2
  done
  [[ -n $line ]] || die "PostgreSQL did not start within 120 s"
  PG_PORT=$(sed 's/.* port=\([0-9]*\).*/\1/' <<<"$line")
  PG_PID=$(sed 's/.* pid=\([0-9]*\).*/\1/' <<<"$line")
  log "postgres: port $PG_PORT postmaster pid $PG_PID durable=$PG_DURABLE databases $*"
  echo "postgres $(cut -d' ' -f2- <<<"$line") version=$(cat "$OUT/pg/PG_VERSION") store_pool_size=${PG_POOL:-default} databases=$*" >>"$OUT/config.txt"
}

pg_db() { tr -c 'a-z0-9\n' '_' <<<"tally_$1"; }

start_sidecar() { # name store loops native index [jar]
  local name=$1 store=$2 loops=$3 native=$4 i=$5 jar=${6:-$SIDECAR_JAR}
  local st=memory cp=$jar replicas=1 r label port admin pool=$PG_POOL
  if [[ $store == */* ]]; then
    pool=${store#*/}
    store=${store%%/*}
  fi
  case $store in
    memory) ;;
    # Each journal sidecar in its own directory: the audit journals go beside the store (../audit).
    journal) st="journal:$OUT/store-$name/journal" ;;
    postgres | postgres2)
      [[ $store == postgres2 ]] && replicas=2
      st="postgres://tally@127.0.0.1:$PG_PORT/$(pg_db "$name")?password_file=$OUT/pg.password${pool:+&pool_size=$pool}" ;;
    *) die "unknown store $store (expected memory, journal, postgres or postgres2)" ;;
  esac
  [[ $native == 1 ]] && cp="$jar:$NATIVE_CP"
  local env=(TALLY_SIDECAR_NATIVE_TRANSPORT=$([[ $native == 1 ]] && echo true || echo false))
  [[ $loops != 0 ]] && env+=(TALLY_SIDECAR_EVENT_LOOPS=$loops)
  REPLICAS[$name]=$replicas
  for r in $(seq 1 "$replicas"); do
    # The second replica of a contender is "<name>-b", on ports 40 above the first's.
    label=$name
    [[ $r == 2 ]] && label="$name-b"
    port=$((PORT_BASE + 10 + 2 * i + 40 * (r - 1)))
    admin=$((port + 1))
    port_free "$port" && port_free "$admin" || die "port $port or $admin is taken (set PORT_BASE)"
    local jfr=() jvm_var="JVM_${name//-/_}" java_var="JAVA_${name//-/_}" config_var="CONFIG_${name//-/_}" jvm
    local env_var="ENV_${name//-/_}" extra=()
    read -r -a extra <<<"${!env_var:-}"
    local java_bin=${!java_var:-java} config=${!config_var:-$HERE/tally-bench.yaml}
    local default_jvm=$SIDECAR_JVM
    [[ $store == journal* ]] && default_jvm=$JOURNAL_JVM
    read -r -a jvm <<<"${!jvm_var:-$default_jvm}"
    [[ $PROFILE == 1 ]] && jfr=("-XX:StartFlightRecording=filename=$OUT/$label.jfr,settings=profile")
    (cd "$OUT" && exec env "${env[@]}" "${extra[@]}" "$java_bin" "${jvm[@]}" "-Xlog:gc:file=$OUT/$label-gc.log" "${jfr[@]}" -cp "$cp" \
      dev.tally.sidecar.cli.TallyCli serve --upstream "${URL[direct]}" \
      --listen "127.0.0.1:$port" --admin "127.0.0.1:$admin" --store "$st" \
      --config "$config" --hmac-key-file "$OUT/hmac.keys") \
      >"$OUT/$label.log" 2>&1 &
    PIDS+=($!)
    PIDOF[$label]=$!
    URL[$label]="http://127.0.0.1:$port/mcp"
    ADMIN[$label]="http://127.0.0.1:$admin"
    KIND[$label]=$store
    wait_http "${ADMIN[$label]}/readyz" 90 "${PIDOF[$label]}" "$OUT/$label.log"
    # The sidecar jar ships epoll, so a loaded library says nothing: the knob decides.
    local transport=nio
    [[ $native == 1 ]] && transport=epoll
    log "sidecar $label: store=$store eventLoops=$loops transport=$transport pid=${PIDOF[$label]}"
    echo "sidecar name=$label jar=${jar##*/} store=$store${pool:+ pool_size=$pool} eventLoops=$([[ $loops == 0 ]] && echo "default(min(2,cores))" || echo $loops) transport=$transport java=$java_bin jvm=\"${jvm[*]}\" config=${config##*/} env=\"${extra[*]}\"" >>"$OUT/config.txt"
  done
}

# The processes of a contender: itself, and its second replica if it has one.
replicas_of() { # contender
  if [[ ${REPLICAS[$1]:-1} == 2 ]]; then echo "$1 $1-b"; else echo "$1"; fi
}

# ---------------------------------------------------------------- measurement helpers
# Process CPU time (user+system, clock ticks) of a pid and its children (nginx workers).
machine_ticks() { # "idle busy" ticks of the whole machine (/proc/stat), iowait counted as idle
  awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat
}

cpu_ticks() {
  local root=$1 sum=0 p f
  for p in $root $(pgrep -P "$root" || true); do
    if [[ -r /proc/$p/stat ]]; then
      f=$(sed 's/^.*) //' "/proc/$p/stat")
      set -- $f
      sum=$((sum + ${12} + ${13}))
    fi
  done
  echo "$sum"
}
TICK=$(getconf CLK_TCK)

# Share of a sidecar's CPU time per thread (busiest first): shows how many event loops work.
thread_cpu() { # the busiest threads' share of the process's CPU, and how much of it was kernel time
  local pid=${PIDOF[$1]} t
  for t in /proc/"$pid"/task/*; do
    [[ -r $t/stat ]] || continue
    echo "$(sed 's/^.*) //' "$t/stat" | awk '{print $12 + $13, $13}') $(tr ' ' '_' <"$t/comm")#${t##*/}"
  done | sort -n -r | awk -v n="$1" '{v[NR] = $1; sy[NR] = $2; k[NR] = $3; s += $1; ss += $2}
    END {printf "threads %s (share of process CPU, of it in the kernel; process %.0f%% kernel):", n, 100 * ss / (s ? s : 1)
      for (i = 1; i <= NR && i <= 8; i++) printf " %s=%.0f%%(sys %.0f%%)", k[i], 100 * v[i] / (s ? s : 1), 100 * sy[i] / (s ? s : 1); print ""}'
}

executed() { curl -s -m 5 "http://127.0.0.1:$UP_PORT/count" | tr -d '\r\n'; }

contender_cpu() { # contender: CPU ticks of all its processes
  local sum=0 r
  for r in $(replicas_of "$1"); do sum=$((sum + $(cpu_ticks "${PIDOF[$r]}"))); done
  echo "$sum"
}

store_trips() { # contender metric: a PostgreSQL store counter summed over its replicas
  local sum=0 r v
  for r in $(replicas_of "$1"); do
    v=$(metric "$2" "${ADMIN[$r]}")
    sum=$((sum + ${v:-0}))
  done
  echo "$sum"
}

metric() { # name admin-url
  curl -s -m 5 "$2/metrics" | awk -v m="$1" '$1 == m {print $2}'
}

run_wrk() { # url workload seconds conns delay prefix [threads]
  local pin=()
  [[ -n $PIN_WRK ]] && pin=(taskset -c "$PIN_WRK")
  local t=${7:-$THREADS}
  ((t <= $4)) || t=$4 # wrk needs at least one connection per thread
  MCP_WORKLOAD=$2 MCP_DELAY_MS=$5 MCP_PREFIX=$6 MCP_PAYLOAD_BYTES=$PAYLOAD \
    "${pin[@]}" wrk -t"$t" -c"$4" -d"${3}s" --timeout 10s -s "$HERE/mcp.lua" "$1" |
    grep '^RESULT' | sed 's/^RESULT //'
}

# wrk against a contender. Two replicas: two wrk processes started together, each with half the
# connections and threads, one per replica (no balancer in between). Their result lines are
# merged: counts summed, duration the longer, p50 and mean weighted by requests, p90/p99/max the
# larger of the two.
run_load() { # contender workload seconds conns delay prefix
  local c=$1
  if [[ ${REPLICAS[$c]:-1} == 1 ]]; then
    run_wrk "${URL[$c]}" "$2" "$3" "$4" "$5" "$6"
    return
  fi
  local t=$((THREADS / 2)) r n=0 pids=()
  ((t >= 1)) || t=1
  for r in $(replicas_of "$c"); do
    n=$((n + 1))
    run_wrk "${URL[$r]}" "$2" "$3" $(($4 / 2)) "$5" "$6-r$n" "$t" >"$OUT/wrk-$n.out" &
    pids+=($!)
  done
  wait "${pids[@]}"
  cat "$OUT"/wrk-[12].out | awk '{for (i = 1; i <= NF; i++) {split($i, a, "="); v[NR, a[1]] = a[2]}}
    END {
      n1 = v[1, "requests"]; n2 = v[2, "requests"]; n = n1 + n2
      printf "requests=%d duration_us=%d", n, (v[1, "duration_us"] > v[2, "duration_us"] ? v[1, "duration_us"] : v[2, "duration_us"])
      split("connect_err read_err write_err timeout_err non2xx", s, " ")
      for (k = 1; k <= 5; k++) printf " %s=%d", s[k], v[1, s[k]] + v[2, s[k]]
      printf " p50_us=%d", n ? (v[1, "p50_us"] * n1 + v[2, "p50_us"] * n2) / n : 0
      split("p90_us p99_us max_us", m, " ")
      for (k = 1; k <= 3; k++) printf " %s=%d", m[k], (v[1, m[k]] > v[2, m[k]] ? v[1, m[k]] : v[2, m[k]])
      printf " mean_us=%.1f wrk_processes=2\n", n ? (v[1, "mean_us"] * n1 + v[2, "mean_us"] * n2) / n : 0
    }'
}

RUN_ID=$(date +%s)
SEQ=0
# Bytes of the "pad" argument and of the result text of lookup and effect calls (size phases).
PAYLOAD=0
# One measured (or warm-up) sample; appends a key=value line to samples.txt when measured.
sample() { # phase workload contender round delay conns seconds measured
  local phase=$1 wl=$2 c=$3 round=$4 delay=$5 conns=$6 secs=$7 measured=$8
  SEQ=$((SEQ + 1))
  local prefix="$RUN_ID-$SEQ"
  local up=${PIDOF[direct]} pg=${KIND[$c]}
  [[ $pg == postgres* ]] || pg=
  local c0 u0 x0 f0 r0 d0 t0 n0 c1 u1 x1 f1 r1 d1 t1 n1 res
  c0=$(contender_cpu "$c"); u0=$(cpu_ticks "$up"); x0=$(executed)
  local m0 m1
  m0=$(machine_ticks)
  if [[ ${KIND[$c]} == journal ]]; then
    f0=$(metric tally_journal_fsyncs_total "${ADMIN[$c]}"); r0=$(metric tally_journal_records_total "${ADMIN[$c]}")
  fi
  if [[ -n $pg ]]; then
    d0=$(cpu_ticks "$PG_PID"); t0=$(store_trips "$c" tally_store_round_trips_total)
    n0=$(store_trips "$c" tally_store_notify_statements_total)
  fi
  local perf_pid=
  if [[ $PERF == 1 && $measured == 1 && $delay == 0 ]]; then
    perf record -q -a -e cpu-clock -F 499 -o "$OUT/perf-$c-$phase-$round.data" -- sleep "$secs" \
      >/dev/null 2>&1 &
    perf_pid=$!
  fi
  res=$(run_load "$c" "$wl" "$secs" "$conns" "$delay" "$prefix")
  [[ -n $perf_pid ]] && wait "$perf_pid"
  c1=$(contender_cpu "$c"); u1=$(cpu_ticks "$up"); x1=$(executed)
  m1=$(machine_ticks)
  local extra=""
  extra+=$(awk -v a="$m0" -v b="$m1" 'BEGIN {split(a, x, " "); split(b, y, " "); i = y[1] - x[1]; t = i + y[2] - x[2]
    printf " machine_idle_pct=%.1f", (t > 0 ? 100 * i / t : 0)}')
  if [[ ${KIND[$c]} == journal ]]; then
    f1=$(metric tally_journal_fsyncs_total "${ADMIN[$c]}"); r1=$(metric tally_journal_records_total "${ADMIN[$c]}")
    extra+=" fsyncs=$((f1 - f0)) records=$((r1 - r0))"
  fi
  if [[ -n $pg ]]; then
    d1=$(cpu_ticks "$PG_PID"); t1=$(store_trips "$c" tally_store_round_trips_total)
    n1=$(store_trips "$c" tally_store_notify_statements_total)
    extra+=" replicas=${REPLICAS[$c]} db_cpu_ticks=$((d1 - d0)) store_trips=$((t1 - t0)) notify_stmts=$((n1 - n0))"
  fi
  local line="phase=$phase workload=$wl contender=$c kind=${KIND[$c]} round=$round conns=$conns delay_ms=$delay payload_bytes=$PAYLOAD $res proc_cpu_ticks=$((c1 - c0)) upstream_cpu_ticks=$((u1 - u0)) tick_hz=$TICK executed=$((x1 - x0))$extra"
  if [[ $measured == 1 ]]; then
    echo "$line" >>"$OUT/samples.txt"
    log "$(awk '{for(i=1;i<=NF;i++){split($i,a,"=");v[a[1]]=a[2]}}
      END{printf "%-13s %-12s r%s %-14s %8.0f req/s p50 %6.2f ms p99 %6.2f ms non2xx %s err %s executed %s", v["phase"], v["workload"], v["round"], v["contender"], v["requests"]/(v["duration_us"]/1e6), v["p50_us"]/1000, v["p99_us"]/1000, v["non2xx"], v["read_err"]+v["write_err"]+v["connect_err"]+v["timeout_err"], v["executed"]}' <<<"$line")"
  fi
}

storm_sample() { # phase contender round seconds measured
  local phase=$1 c=$2 round=$3 secs=$4 measured=$5 up=${PIDOF[direct]} key=()
  [[ $phase == storm-keyed ]] && key=(--keyed)
  local c0 u0 c1 u1 res
  c0=$(contender_cpu "$c"); u0=$(cpu_ticks "$up")
  res=$(java -Xmx256m -cp "$BENCH_JAR" dev.tally.bench.load.StormDriver --url "${URL[$c]}" \
    --count-url "http://127.0.0.1:$UP_PORT/count" --clients "$STORM_CLIENTS" \
    --seconds "$secs" --warmup 1 --prefix "$RUN_ID-$phase$round-$c" "${key[@]}" 2>"$OUT/storm-error.log" |
    grep '^STORM' | sed 's/^STORM //' || true)
  if [[ -z $res ]]; then
    log "$phase r$round $c: the storm driver failed: $(grep -m1 -v '^\s*at ' "$OUT/storm-error.log")"
    return
  fi
  [[ $measured == 1 ]] || return 0
  c1=$(contender_cpu "$c"); u1=$(cpu_ticks "$up")
  local line="phase=$phase workload=storm contender=$c kind=${KIND[$c]} round=$round $res proc_cpu_ticks=$((c1 - c0)) upstream_cpu_ticks=$((u1 - u0)) tick_hz=$TICK"
  echo "$line" >>"$OUT/samples.txt"
  log "$phase r$round $c: $res"
}

# A correct answer through every contender before anything is timed.
preflight() {
  local c wl body out x0 x1
  for c in "${ALL[@]}"; do
    for wl in list lookup effect; do
      case $wl in
        list) body='{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}' ;;
        lookup) body='{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup","arguments":{"key":"k"}}}' ;;
        effect) body="{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"create_ticket\",\"arguments\":{\"title\":\"preflight $RUN_ID $c\"}}}" ;;
      esac
      x0=$(executed)
      out=$(curl -s -m 10 -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-06-18' \
        -d "$body" "${URL[$c]}")
      x1=$(executed)
      [[ $out == *'"id":5,"result"'* && $out != *'"isError":true'* ]] ||
        die "preflight $c $wl: unexpected answer: ${out:0:300}"
      if [[ $wl == effect && $((x1 - x0)) != 1 ]]; then
        die "preflight $c effect: upstream executed $((x1 - x0)) times (expected 1)"
      fi
    done
  done
  log "preflight: every contender answers list, lookup and effect correctly"
}

contenders_for() { # phase -> names
  local phase=$1 n out=(direct nginx)
  # Storms: direct shows what the upstream gets without Tally (every copy executes). nginx is left
  # out: with nginx in front the storm driver intermittently hung with no connection open (a
  # client-pool problem not investigated; nginx would also forward every copy).
  [[ $phase == storm ]] && out=(direct)
  [[ $phase == storm-keyed ]] && out=()
  for n in "${SIDECAR_NAMES[@]}"; do
    if [[ ${KIND[$n]} != memory && $phase != effect && $phase != paced-effect && $phase != storm* ]]; then
      continue
    fi
    out+=("$n")
  done
  echo "${out[@]}"
}

declare -A WARMED
run_phase() {
  local phase=$1 wl delay=0 conns=$CONNS c r secs
  # list@16, lookup@1, effect@256 ...: the saturation workload at another connection count (the
  # scale curves of report.html); recorded under that phase name, so report.md's tables keep 64.
  if [[ $phase =~ ^(list|lookup|effect)@([0-9]+)$ ]]; then
    conns=${BASH_REMATCH[2]}
    ((conns >= 1)) || die "phase $phase: at least one connection"
    wl=${BASH_REMATCH[1]}
    run_sweep_phase "$phase" "$wl" "$conns"
    return
  fi
  # lookup#16384, effect#1024 ...: the workload with arguments and result of that many bytes more
  # (the cost-by-size curves of report.html), at the usual connection count.
  if [[ $phase =~ ^(lookup|effect)#([0-9]+)$ ]]; then
    PAYLOAD=${BASH_REMATCH[2]}
    ((PAYLOAD >= 1)) || die "phase $phase: at least one byte"
    run_sweep_phase "$phase" "${BASH_REMATCH[1]}" "$CONNS"
    PAYLOAD=0
    return
  fi
  case $phase in
    list | lookup | effect) wl=$phase ;;
    paced-lookup | paced-effect) wl=${phase#paced-}; delay=$PACED_DELAY_MS; conns=$PACED_CONNS ;;
    storm | storm-keyed) wl=storm ;;
    *) die "unknown phase $phase" ;;
  esac
  local cs
  read -r -a cs <<<"$(contenders_for "$phase")"
  log "phase $phase: ${cs[*]}"
  if [[ $phase == storm* ]]; then
    for c in "${cs[@]}"; do storm_sample "$phase" "$c" 0 "$(((WARMUP + 1) / 2))" 0; done
    for r in $(seq 1 "$ROUNDS"); do
      for c in "${cs[@]}"; do storm_sample "$phase" "$c" "$r" "$SAMPLE" 1; done
    done
    return
  fi
  for c in "${cs[@]}"; do
    secs=$WARMUP
    [[ -z ${WARMED[$c]:-} ]] && secs=$WARMUP_FIRST
    [[ $delay != 0 ]] && secs=$(( (WARMUP + 1) / 2 ))
    WARMED[$c]=1
    sample "$phase" "$wl" "$c" 0 "$delay" "$conns" "$secs" 0
  done
  local secs_measured=$SAMPLE
  [[ $delay != 0 ]] && secs_measured=$PACED_SAMPLE
  for r in $(seq 1 "$ROUNDS"); do
    for c in "${cs[@]}"; do sample "$phase" "$wl" "$c" "$r" "$delay" "$conns" "$secs_measured" 1; done
  done
}

run_sweep_phase() { # phase workload conns
  local phase=$1 wl=$2 conns=$3 c r cs
  read -r -a cs <<<"$(contenders_for "$wl")"
  log "phase $phase: ${cs[*]}"
  for c in "${cs[@]}"; do sample "$phase" "$wl" "$c" 0 0 "$conns" "$WARMUP" 0; done
  for r in $(seq 1 "$ROUNDS"); do
    for c in "${cs[@]}"; do sample "$phase" "$wl" "$c" "$r" 0 "$conns" "$SAMPLE" 1; done
  done
}

# ---------------------------------------------------------------- main
ensure_tools
ensure_jars
mkdir -p "$OUT"
: >"$OUT/samples.txt"
printf 'k%s:%s\n' "$(date -u +%Y%m%d)" "$(head -c 32 /dev/urandom | base64)" >"$OUT/hmac.keys"
chmod 600 "$OUT/hmac.keys"
{
  echo "mode=$MODE rounds=$ROUNDS sample_s=$SAMPLE paced_sample_s=$PACED_SAMPLE warmup_first_s=$WARMUP_FIRST warmup_s=$WARMUP conns=$CONNS threads=$THREADS paced_conns=$PACED_CONNS paced_delay_ms=$PACED_DELAY_MS storm_clients=$STORM_CLIENTS pin_wrk=${PIN_WRK:-none} nginx_workers=$NGINX_WORKERS"
  echo "machine cpus=$(nproc) model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') kernel=$(uname -r)"
  echo "java=$(java -version 2>&1 | head -1) nginx=$(nginx -v 2>&1 | sed 's/.*nginx\///') wrk=$(wrk -v 2>&1 | head -1 | awk '{print $2}')"
  echo "load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/config.txt"
log "output: $OUT (load average $(cut -d' ' -f1-3 /proc/loadavg))"

start_upstream
start_nginx
PG_DATABASES=()
for spec in $SIDECARS; do
  [[ ${spec#*=} == postgres* ]] && PG_DATABASES+=("$(pg_db "${spec%%=*}")")
done
[[ ${#PG_DATABASES[@]} -gt 0 ]] && start_postgres "${PG_DATABASES[@]}"
SIDECAR_NAMES=()
ALL=(direct nginx)
i=0
for spec in $SIDECARS; do
  name=${spec%%=*}
  IFS=: read -r store loops native jar <<<"${spec#*=}"
  start_sidecar "$name" "$store" "$loops" "$native" "$i" "${jar:-}"
  SIDECAR_NAMES+=("$name")
  read -r -a reps <<<"$(replicas_of "$name")"
  ALL+=("${reps[@]}")
  i=$((i + 1))
done
preflight

for phase in $PHASES; do run_phase "$phase"; done

echo "load_at_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/config.txt"
for n in "${SIDECAR_NAMES[@]}"; do thread_cpu "$n" >>"$OUT/config.txt"; done
if [[ $PROFILE == 1 ]]; then
  for n in "${SIDECAR_NAMES[@]}"; do
    jcmd "${PIDOF[$n]}" JFR.dump name=1 filename="$OUT/$n.jfr" >/dev/null 2>&1 || true
  done
fi
java -cp "$BENCH_JAR" dev.tally.bench.load.LoadReport "$OUT" >"$OUT/report.md"
java -cp "$BENCH_JAR" dev.tally.bench.load.LoadExport "$OUT" # samples.csv, report.html
if [[ $PROFILE == 1 ]]; then
  for n in "${SIDECAR_NAMES[@]}"; do
    [[ -s $OUT/$n.jfr ]] && java -cp "$BENCH_JAR" dev.tally.bench.load.JfrTop "$OUT/$n.jfr" >>"$OUT/report.md"
  done
fi
if [[ $PERF == 1 ]]; then
  # JIT-compiled methods get names in perf's report from /tmp/perf-<pid>.map.
  for n in "${SIDECAR_NAMES[@]}"; do jcmd "${PIDOF[$n]}" Compiler.perfmap >/dev/null 2>&1 || true; done
  for f in "$OUT"/perf-*.data; do
    [[ -s $f ]] || continue
    {
      echo
      echo "perf $(basename "$f" .data): share of all CPU samples of the machine"
      echo
      echo '```'
      # head stops reading early: perf then dies of SIGPIPE, which pipefail must not make fatal.
      { perf report -i "$f" --no-children --sort pid,dso --stdio -q -g none 2>/dev/null || true; } |
        grep -v '^$' | head -25 || true
      echo
      { perf report -i "$f" --no-children --sort sym --stdio -q --dsos '[kernel.kallsyms]' -g none \
        2>/dev/null || true; } | grep -v '^$' | head -25 || true
      echo '```'
    } >>"$OUT/report.md"
  done
fi
cat "$OUT/report.md"
# The journal stores of a full run take several GB; runs add up until the disk is full (it
# happened: the journal sidecar then failed closed with 503s mid-run). KEEP_STORES=1 keeps them.
if [[ ${KEEP_STORES:-0} != 1 ]]; then
  rm -rf "$OUT"/store-*
  log "removed the sidecars' store directories (KEEP_STORES=1 keeps them)"
fi
