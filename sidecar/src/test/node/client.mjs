// MCP clients on the TypeScript SDK's StreamableHTTPClientTransport, talking to server.mjs
// through the sidecar. Run by SidecarTypeScriptInteropIT.
//
//   node client.mjs <sidecar MCP URL> <server control base URL> [direct]
//
// (a) Client A calls the slow write tool create_ticket {title: "resumed"} and cuts the POST
//     response stream right after the first progress notification (its fetch is aborted, as a
//     dropped connection would be), then lets the tool finish. The SDK's own reconnection
//     resumes with GET + Last-Event-ID through the sidecar, which alone holds event ids (the
//     server has no event store); the call must resolve with the tool's result.
// (b) Client B calls create_ticket {title: "retried"}, cuts the stream the same way and gives up
//     (closes, no resumption): its result is never delivered. A fresh client C on a new session
//     re-sends the call with a new JSON-RPC id: it must get the recorded result, marked
//     _meta["dev.tally/replay"], and the tool must not run again.
//
// With `direct` (the control experiment, pointed at the server itself) only (a) runs, with a
// short timeout, and the call must be lost: no event id, no resumption, a timeout.
//
// Asserts in JS, then prints one line `RESULT {json}` to stdout (also on failure, with
// "ok":false) for the Java test to check again. Exit code 0 only when every assertion held.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [sidecarUrl, controlUrl, mode] = process.argv.slice(2);
if (!sidecarUrl || !controlUrl) {
  process.stderr.write('usage: node client.mjs <MCP URL> <server control base URL> [direct]\n');
  process.exit(64);
}
const direct = mode === 'direct';
const SCRIPT_TIMEOUT_MS = Number(process.env.SCRIPT_TIMEOUT_MS ?? 60000);
const CALL_TIMEOUT_MS = Number(process.env.CALL_TIMEOUT_MS ?? (direct ? 2000 : 20000));
const REPLAY = 'dev.tally/replay';

const report = { ok: false, sdk: sdkVersion() };

function log(line) {
  process.stderr.write(`[ts-client] ${line}\n`);
}

function finish(code) {
  process.stdout.write('RESULT ' + JSON.stringify(report) + '\n', () => process.exit(code));
}

setTimeout(() => {
  report.error = `client script did not finish within ${SCRIPT_TIMEOUT_MS} ms`;
  finish(2);
}, SCRIPT_TIMEOUT_MS).unref();

function sdkVersion() {
  try {
    const p = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
    return JSON.parse(readFileSync(p, 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * A fetch for a transport that records every request it makes and can cut the response of the
 * next create_ticket POST once armed: cut() aborts that fetch, which tears the connection down
 * and makes the SDK's read of the SSE body fail like a network drop.
 */
function recordingFetch() {
  const requests = [];
  let armed = false;
  let abort = null;
  const f = async (url, init = {}) => {
    const method = init.method ?? 'GET';
    const entry = { method };
    const lastEventId = new Headers(init.headers).get('last-event-id');
    if (lastEventId !== null) {
      entry.lastEventId = lastEventId;
    }
    if (method === 'POST' && typeof init.body === 'string') {
      const msg = JSON.parse(init.body);
      Object.assign(entry, { rpcMethod: msg.method, rpcId: msg.id, tool: msg.params?.name });
      if (armed && msg.method === 'tools/call' && msg.params?.name === 'create_ticket') {
        armed = false;
        const ac = new AbortController();
        const outer = init.signal;
        outer?.addEventListener('abort', () => ac.abort(outer.reason), { once: true });
        abort = () => ac.abort(new Error('response stream cut by the test'));
        init = { ...init, signal: ac.signal };
      }
    }
    requests.push(entry);
    const res = await fetch(url, init);
    entry.status = res.status;
    entry.contentType = res.headers.get('content-type') ?? undefined;
    return res;
  };
  return {
    fetch: f,
    requests,
    arm: () => {
      armed = true;
    },
    cut: () => abort?.()
  };
}

async function connect(name, fetchFn) {
  const client = new Client({ name, version: '1.0.0' });
  client.onerror = e => log(`${name}: ${e?.message ?? e}`);
  // The SDK's default reconnection (first retry after 1 s, 2 attempts) does the resuming.
  const transport = new StreamableHTTPClientTransport(new URL(sidecarUrl), { fetch: fetchFn });
  await client.connect(transport);
  return { client, transport };
}

async function releaseTool() {
  const r = await fetch(new URL('/control/release', controlUrl), { method: 'POST' });
  return (await r.json()).released;
}

/**
 * Calls create_ticket and cuts its response stream at the first progress notification; then
 * runs afterCut (before the tool is released) and releases the tool. Resolves with the call's
 * promise (not awaited) and what was seen before the cut.
 */
function cutCall(who, rec, title, afterCut = async () => {}) {
  const seen = { tokens: [], tokensAtCut: null, progress: 0 };
  let cutDone;
  const cutSettled = new Promise(resolve => {
    cutDone = resolve;
  });
  rec.arm();
  const call = who.client.callTool({ name: 'create_ticket', arguments: { title } }, undefined, {
    timeout: CALL_TIMEOUT_MS,
    onresumptiontoken: t => seen.tokens.push(t),
    onprogress: () => {
      seen.progress++;
      if (seen.tokensAtCut !== null) {
        return;
      }
      seen.tokensAtCut = [...seen.tokens];
      log(`${title}: progress after event ids ${JSON.stringify(seen.tokens)}; cutting`);
      rec.cut();
      afterCut()
        .then(releaseTool)
        .then(n => {
          seen.released = n;
        })
        .catch(e => log(`${title}: after the cut: ${e}`))
        .finally(cutDone);
    }
  });
  return { call, seen, cutSettled };
}

function text(result) {
  return result?.content?.[0]?.text;
}

function replayOf(result) {
  return result?._meta?.[REPLAY] ?? null;
}

async function resumed(rec) {
  const a = await connect('client-a', rec.fetch);
  report.protocolVersion = a.transport.protocolVersion;
  const tools = await a.client.listTools();
  assert.deepEqual(tools.tools.map(t => t.name).sort(), [
    'book_slot',
    'count_effects',
    'create_ticket'
  ]);

  const { call, seen, cutSettled } = cutCall(a, rec, 'resumed');
  if (direct) {
    const outcome = await call.then(
      r => ({ text: text(r) }),
      e => ({ error: String(e?.message ?? e) })
    );
    await cutSettled;
    report.a = { ...outcome, lost: outcome.error !== undefined, ...seen, requests: rec.requests };
    assert.ok(seen.progress > 0, 'the cut came after the progress notification');
    assert.deepEqual(seen.tokens, [], 'the server alone sends no event ids');
    assert.ok(report.a.lost, 'the call cannot complete once its stream was cut');
    assert.match(report.a.error, /timed out/i);
    await a.client.close();
    return null;
  }
  const first = await call;
  await cutSettled;
  report.a = { text: text(first), replayMeta: replayOf(first), ...seen, requests: rec.requests };
  assert.equal(text(first), 'ticket T-1 created: resumed', 'the resumed call returns the result');
  assert.equal(seen.released, 1, 'the tool was held until the cut');
  assert.ok(seen.tokensAtCut?.length > 0, 'an event id was seen before the cut');
  const resumes = rec.requests.filter(r => r.method === 'GET' && r.lastEventId !== undefined);
  assert.ok(resumes.length >= 1, 'the SDK resumed with GET + Last-Event-ID');
  assert.equal(resumes[0].lastEventId, seen.tokensAtCut.at(-1), 'from the last id it saw');
  assert.equal(resumes[0].status, 200, 'the sidecar accepted the resumption');
  assert.ok(seen.tokens.length > seen.tokensAtCut.length, 'the resumed stream carries event ids');
  assert.equal(replayOf(first), null, 'the first delivery is not a replay');
  return a;
}

async function retried(a) {
  const recB = recordingFetch();
  const b = await connect('client-b', recB.fetch);
  await b.client.listTools();
  // B gives up as soon as its stream is cut: closing stops the SDK from resuming.
  const { call, seen, cutSettled } = cutCall(b, recB, 'retried', () => b.client.close());
  const lost = await call.then(
    r => ({ text: text(r) }),
    e => ({ error: String(e?.message ?? e) })
  );
  await cutSettled;
  assert.ok(lost.error, 'the abandoned call did not complete on client B');
  assert.equal(seen.released, 1, 'the tool was held until B gave up');

  const recC = recordingFetch();
  const c = await connect('client-c', recC.fetch);
  const args = { name: 'create_ticket', arguments: { title: 'retried' } };
  const fromC = await c.client.callTool(args, undefined, { timeout: CALL_TIMEOUT_MS });
  const count = await c.client.callTool({ name: 'count_effects', arguments: {} }, undefined, {
    timeout: CALL_TIMEOUT_MS
  });
  const ids = rec => rec.requests.filter(r => r.tool === 'create_ticket').map(r => r.rpcId);
  report.b = {
    lost,
    originalId: ids(recB)[0],
    resentId: ids(recC)[0],
    fromC: { text: text(fromC), replayMeta: replayOf(fromC) },
    sessions: [a.transport.sessionId, b.transport.sessionId, c.transport.sessionId]
  };
  report.sideEffects = count.structuredContent?.sideEffects ?? Number(text(count));
  assert.notEqual(report.b.resentId, report.b.originalId, 're-sent with a new JSON-RPC id');
  assert.equal(new Set(report.b.sessions).size, 3, 'three sessions');
  assert.equal(text(fromC), 'ticket T-2 created: retried', 'the recorded result');
  assert.ok(replayOf(fromC)?.executionId, 'marked as a replay');
  assert.equal(report.sideEffects, 2, 'each of the two calls ran once');

  await c.transport.terminateSession();
  await c.client.close();
}

async function main() {
  const rec = recordingFetch();
  const a = await resumed(rec);
  if (a !== null) {
    await retried(a);
    await a.transport.terminateSession();
    await a.client.close();
  }
  report.ok = true;
}

main().then(
  () => finish(0),
  e => {
    report.error = e?.stack ?? String(e);
    log(report.error);
    finish(1);
  }
);
