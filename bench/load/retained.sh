#!/usr/bin/env bash
# Heap per retained execution and fixed-rate p99 against the number of retained executions
# (issue 20): one sidecar at a time per store kind, in front of the canned upstream. For every
# level of COUNTS the sidecar is filled with side-effecting calls (every one a new intent, kept for
# the default 24 h resultRetention) until its store holds at least that many executions
# (tally_store_executions), then
#   - the heap used after a full GC (jcmd GC.run, then GC.heap_info),
#   - the side-effecting p99 at a fixed ~3,000 req/s (16 connections, 5 ms between requests, the
#     paced phase of run.sh) for PACED_S seconds, the upstream alone right after it (added p99 =
#     the difference), and the longest young pause and number of pauses during the paced sample.
# Bytes per execution = heap growth from the first level / executions added. Everything listens
# on 127.0.0.1 and is stopped on exit; the journal's files are removed at the end.
#
#   bench/load/retained.sh                      # memory and journal, levels 0 100000 1000000
#   STORES=journal COUNTS="0 100000" bench/load/retained.sh
#   HEAP=1g PACED_S=20 OUT=/tmp/r bench/load/retained.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STORES=${STORES:-"memory journal"}
COUNTS=${COUNTS:-"0 100000 1000000"}
HEAP=${HEAP:-2g}
PACED_S=${PACED_S:-20}
PORT_BASE=${PORT_BASE:-18700}
OUT=${OUT:-$ROOT/bench/target/retained-$(date -u +%Y%m%d-%H%M%S)}
SIDECAR_JAR=${SIDECAR_JAR:-$ROOT/sidecar/target/tally-sidecar.jar}
BENCH_JAR=$ROOT/bench/target/tally-bench.jar
UP_PORT=$PORT_BASE
PORT=$((PORT_BASE + 1))
ADMIN=$((PORT_BASE + 2))
PIDS=()

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUT/retained.log" >&2; }
die() { log "error: $*"; exit 1; }
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$OUT/store"
}
trap cleanup EXIT

command -v wrk >/dev/null || die "wrk is missing (bench/run installs it)"
[[ -f $SIDECAR_JAR && -f $BENCH_JAR ]] ||
  die "build the jars first: ./mvnw -B -ntp -pl sidecar,bench -am package -DskipTests"
mkdir -p "$OUT"
printf 'k1:%s\n' "$(head -c 32 /dev/urandom | base64)" >"$OUT/hmac.keys"
chmod 600 "$OUT/hmac.keys"

wait_ready() { # url pid
  local i
  for i in $(seq 1 90); do
    curl -sf -m 2 "$1" >/dev/null && return 0
    kill -0 "$2" 2>/dev/null || die "process $2 ended; see $OUT"
    sleep 1
  done
  die "$1 did not answer within 90 s"
}
kept() { curl -s -m 10 "http://127.0.0.1:$ADMIN/metrics" | awk '$1 == "tally_store_executions" {print int($2)}'; }
heap_used_kib() { # pid: used KiB after a full GC
  jcmd "$1" GC.run >/dev/null
  sleep 1
  jcmd "$1" GC.heap_info | awk '/used/ {for (i = 1; i <= NF; i++) if ($i == "used") {v = $(i + 1); sub(/K,?$/, "", v); print v; exit}}'
}
load() { # url seconds conns delay_ms prefix -> RESULT fields
  MCP_WORKLOAD=effect MCP_DELAY_MS=$4 MCP_PREFIX=$5 MCP_PAYLOAD_BYTES=0 \
    wrk -t2 -c"$3" -d"${2}s" --timeout 10s -s "$HERE/mcp.lua" "$1" | grep '^RESULT' | sed 's/^RESULT //'
}
field() { tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k {print $2}'; }

java -Xms256m -Xmx256m -cp "$BENCH_JAR" dev.tally.bench.load.CannedUpstream --port "$UP_PORT" --loops 2 \
  >"$OUT/upstream.log" 2>&1 &
PIDS+=($!)
wait_ready "http://127.0.0.1:$UP_PORT/count" "${PIDS[0]}"
{
  echo "machine cpus=$(nproc) kernel=$(uname -r) java=$(java -version 2>&1 | head -1)"
  echo "sidecar jar=$SIDECAR_JAR heap=$HEAP G1 levels=$COUNTS paced_s=$PACED_S load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/config.txt"
echo "store executions_kept heap_used_kib paced_requests paced_p99_us direct_p99_us young_pauses max_pause_ms non2xx" >"$OUT/retained.txt"

seq_no=0
for store in $STORES; do
  case $store in
    memory) spec=memory ;;
    journal) spec="journal:$OUT/store/journal" ;;
    *) die "STORES: unknown store $store (expected memory or journal)" ;;
  esac
  rm -rf "$OUT/store"
  java "-Xms$HEAP" "-Xmx$HEAP" "-Xlog:gc:file=$OUT/$store-gc.log" -cp "$SIDECAR_JAR" \
    dev.tally.sidecar.cli.TallyCli serve --upstream "http://127.0.0.1:$UP_PORT/mcp" \
    --listen "127.0.0.1:$PORT" --admin "127.0.0.1:$ADMIN" --store "$spec" \
    --config "$HERE/tally-bench.yaml" --hmac-key-file "$OUT/hmac.keys" >"$OUT/$store.log" 2>&1 &
  sc=$!
  PIDS+=("$sc")
  wait_ready "http://127.0.0.1:$ADMIN/readyz" "$sc"
  log "sidecar $store: pid $sc, heap $HEAP"
  # Warm-up at the fixed rate, so the JIT has compiled the paced path before the first level.
  load "http://127.0.0.1:$PORT/mcp" 15 16 5 "warm-$store-$(date +%s)" >/dev/null
  for level in $COUNTS; do
    full=
    while (($(kept) < level)); do
      seq_no=$((seq_no + 1))
      k0=$(kept)
      r=$(load "http://127.0.0.1:$PORT/mcp" 5 64 0 "fill-$store-$(date +%s)-$seq_no")
      (($(field "$r" requests) > 0)) || die "fill made no progress: $r"
      # The memory store evicts at its bound and the journal refuses new calls when full: either
      # way this level cannot be reached with this heap.
      if (($(field "$r" non2xx) > 0 || $(kept) - k0 < $(field "$r" requests) / 2)); then
        full=1
        log "$store: the store holds no more than $(kept) executions with -Xmx$HEAP ($(field "$r" non2xx) refused, $(( $(kept) - k0 )) of $(field "$r" requests) calls kept); level $level not reached"
        break
      fi
    done
    n=$(kept)
    used=$(heap_used_kib "$sc")
    before=$(grep -c 'Pause Young' "$OUT/$store-gc.log" || true)
    seq_no=$((seq_no + 1))
    paced=$(load "http://127.0.0.1:$PORT/mcp" "$PACED_S" 16 5 "paced-$store-$(date +%s)-$seq_no")
    pauses=$(tail -n +"$((before + 1))" "$OUT/$store-gc.log" | grep 'Pause Young' || true)
    count=$(grep -c . <<<"$pauses" || true)
    [[ -z $pauses ]] && count=0
    longest=$(awk '{v = $NF; sub(/ms$/, "", v); if (v + 0 > m) m = v + 0} END {printf "%.1f", m + 0}' <<<"$pauses")
    seq_no=$((seq_no + 1))
    direct=$(load "http://127.0.0.1:$UP_PORT/mcp" "$PACED_S" 16 5 "direct-$store-$(date +%s)-$seq_no")
    echo "$store $n $used $(field "$paced" requests) $(field "$paced" p99_us) $(field "$direct" p99_us) $count $longest $(field "$paced" non2xx)" >>"$OUT/retained.txt"
    [[ -n $full ]] && n="$n(bound)"
    log "$store: $n executions kept, heap used after GC $((used / 1024)) MiB, paced p99 $(field "$paced" p99_us) µs (direct $(field "$direct" p99_us)), $count young pauses, longest $longest ms"
    [[ -n $full ]] && break
  done
  kill "$sc"
  wait "$sc" 2>/dev/null || true
done

# The table: bytes per execution from the first level of each store.
awk 'NR == 1 {next}
  {
    if (!($1 in n0)) {n0[$1] = $2; h0[$1] = $3}
    per = ($2 > n0[$1]) ? ($3 - h0[$1]) * 1024 / ($2 - n0[$1]) : 0
    b = ($2 ~ /bound/) ? " (store bound)" : ""
    printf "| %s | %d%s | %.0f | %s | %.2f | %.2f | %.2f | %d | %s | %d |\n", $1, $2 + 0, b, $3 / 1024, (per > 0 ? sprintf("%.0f", per) : "–"), $5 / 1000, $6 / 1000, ($5 - $6) / 1000, $7, $8, $9
  }' "$OUT/retained.txt" >"$OUT/table.md"
{
  echo "| store | executions kept | heap used after full GC MiB | bytes per execution (from the first level) | paced p99 ms | upstream alone p99 ms | added p99 ms | young pauses in the paced sample | longest pause ms | non-2xx |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  cat "$OUT/table.md"
} >"$OUT/report.md"
echo "load_at_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/config.txt"
cat "$OUT/report.md"
