#!/bin/bash
# Session 9: syscalls per request of the sidecar and of nginx, tools/list at 64 connections
# (strace -c -f over a 4 s wrk run after warm-up; strace slows both, so only the counts mean
# anything). Run from anywhere after building the jars; writes strace-*.txt and wrk-*.txt to OUT.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); OUT=${OUT:-$(mktemp -d)}; cd "$OUT"
printf 'k1:%s\n' "$(head -c 32 /dev/urandom | base64)" > hmac.keys; chmod 600 hmac.keys
java -Xms256m -Xmx256m -cp $ROOT/bench/target/tally-bench.jar dev.tally.bench.load.CannedUpstream --port 18500 --loops 2 > up.log 2>&1 &
UP=$!
sleep 3
(exec java -Xms1g -Xmx1g -cp $ROOT/sidecar/target/tally-sidecar.jar dev.tally.sidecar.cli.TallyCli serve --upstream http://127.0.0.1:18500/mcp --listen 127.0.0.1:18501 --admin 127.0.0.1:18502 --store memory --config $ROOT/bench/load/tally-bench.yaml --hmac-key-file $OUT/hmac.keys) > sc.log 2>&1 &
SC=$!
mkdir -p ng/tmp
sed -e "s|@WORKERS@|2|" -e "s|@DIR@|$OUT/ng|g" -e "s|@PORT@|18503|" -e "s|@UPSTREAM@|127.0.0.1:18500|" $ROOT/bench/load/nginx.conf.in > ng/nginx.conf
nginx -p $OUT/ng -c $OUT/ng/nginx.conf -e $OUT/ng/error.log &
NG=$!
for i in $(seq 1 60); do curl -sf http://127.0.0.1:18502/readyz >/dev/null && break; sleep 1; done
export MCP_WORKLOAD=${WL:-list}
# warm
wrk -t2 -c64 -d15s -s $ROOT/bench/load/mcp.lua http://127.0.0.1:18501/mcp > /dev/null
wrk -t2 -c64 -d5s -s $ROOT/bench/load/mcp.lua http://127.0.0.1:18503/mcp > /dev/null
for who in sc ng; do
  port=18501; pids=$SC
  [[ $who == ng ]] && { port=18503; pids=$(pgrep -P $NG | tr '\n' ' '); }
  args=(); for p in $pids; do args+=(-p $p); done
  strace -c -f "${args[@]}" -o strace-$who.txt &
  ST=$!
  sleep 1
  wrk -t2 -c64 -d4s -s $ROOT/bench/load/mcp.lua http://127.0.0.1:$port/mcp > wrk-$who.txt
  sleep 0.5
  kill -INT $ST; wait $ST
done
kill $SC $UP; kill -QUIT $NG; wait
