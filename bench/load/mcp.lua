-- wrk script of the Tally load benchmark (bench/load/run.sh). Parameters come from the
-- environment so one file serves every workload:
--   MCP_WORKLOAD  list | lookup | effect   (tools/list, read-only tools/call, side-effecting call)
--   MCP_PREFIX    unique per wrk run: effect arguments are "<prefix>-<thread>-<n>", so every
--                 request is a NEW intent, also across rounds against the same sidecar
--   MCP_DELAY_MS  > 0: each connection waits this long before each request (fixed-rate latency)
--   MCP_PAYLOAD_BYTES  > 0 (lookup, effect): the call carries an argument "pad" of this many
--                 bytes and asks the canned upstream (X-Bench-Result-Bytes) for a result text of as
--                 many, for the cost-by-size curves
-- done() prints one machine-readable RESULT line for run.sh.

local workload = os.getenv("MCP_WORKLOAD") or "list"
local prefix = os.getenv("MCP_PREFIX") or tostring(os.time())
local delay_ms = tonumber(os.getenv("MCP_DELAY_MS") or "0")
local payload = tonumber(os.getenv("MCP_PAYLOAD_BYTES") or "0")
local pad = ""
if payload > 0 then
  pad = ',"pad":"' .. string.rep("x", payload) .. '"'
  wrk.headers["X-Bench-Result-Bytes"] = tostring(payload)
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"

if workload == "list" then
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
elseif workload == "lookup" then
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
    .. '"params":{"name":"lookup","arguments":{"key":"customer-42"' .. pad .. '}}}'
elseif workload == "effect" then
  local threads = {}
  function setup(thread)
    table.insert(threads, thread)
    thread:set("tid", #threads)
  end
  local n = 0
  function request()
    n = n + 1
    local body = string.format('{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
      .. '"params":{"name":"create_ticket","arguments":{"title":"ticket %s-%s-%d",'
      .. '"body":"created by the load benchmark"%s}}}', n, prefix, tostring(tid), n, pad)
    return wrk.format(nil, nil, nil, body)
  end
else
  error("MCP_WORKLOAD: " .. workload .. " (expected list, lookup or effect)")
end

if delay_ms > 0 then
  function delay()
    return delay_ms
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d connect_err=%d read_err=%d write_err=%d"
      .. " timeout_err=%d non2xx=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d mean_us=%.1f\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean))
end
