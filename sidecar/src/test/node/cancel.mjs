// A client on the TypeScript SDK whose own request timeout fires on slow tool calls through the
// sidecar: the SDK then sends notifications/cancelled for the request and rejects the call. The
// client retries each call at once, with the same arguments and a new JSON-RPC id. Run by
// SidecarTypeScriptInteropIT.
//
//   node cancel.mjs <sidecar MCP URL>
//
// (a) create_ticket (irreversible, held by the server until released): the retry must be told
//     OUTCOME_UNKNOWN, not IDEMPOTENCY_IN_PROGRESS, and well before upstream.timeout.
// (b) book_slot (keyed; the server aborts the booking when it sees the cancellation and books
//     nothing): the retry must be re-dispatched under the same Idempotency-Key and get the booking.
//
// Asserts in JS, then prints one line `RESULT {json}` to stdout (also on failure, with
// "ok":false). Exit code 0 only when every assertion held.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [sidecarUrl] = process.argv.slice(2);
if (!sidecarUrl) {
  process.stderr.write('usage: node cancel.mjs <MCP URL>\n');
  process.exit(64);
}
const SCRIPT_TIMEOUT_MS = Number(process.env.SCRIPT_TIMEOUT_MS ?? 60000);
const CALL_TIMEOUT_MS = Number(process.env.CALL_TIMEOUT_MS ?? 1500);
const RETRY_TIMEOUT_MS = Number(process.env.RETRY_TIMEOUT_MS ?? 40000);

const report = { ok: false };

function log(line) {
  process.stderr.write(`[ts-cancel] ${line}\n`);
}

function finish(code) {
  process.stdout.write('RESULT ' + JSON.stringify(report) + '\n', () => process.exit(code));
}

setTimeout(() => {
  report.error = `cancel script did not finish within ${SCRIPT_TIMEOUT_MS} ms`;
  finish(2);
}, SCRIPT_TIMEOUT_MS).unref();

/** Every POST the transport makes: JSON-RPC method, id and, for a cancellation, its requestId. */
function recordingFetch() {
  const posts = [];
  const f = async (url, init = {}) => {
    if ((init.method ?? 'GET') === 'POST' && typeof init.body === 'string') {
      const msg = JSON.parse(init.body);
      posts.push({ method: msg.method, id: msg.id, requestId: msg.params?.requestId });
    }
    return fetch(url, init);
  };
  return { fetch: f, posts };
}

function tally(result) {
  return result?.structuredContent?.tally ?? null;
}

/** The call times out on the client (the SDK cancels it), then is retried at once. */
async function timedOutThenRetried(client, name, args) {
  const t0 = Date.now();
  const first = await client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_TIMEOUT_MS
  }).then(
    r => ({ result: r }),
    e => ({ error: String(e?.message ?? e), code: e?.code })
  );
  const t1 = Date.now();
  const retry = await client.callTool({ name, arguments: args }, undefined, {
    timeout: RETRY_TIMEOUT_MS
  });
  const t2 = Date.now();
  return {
    first,
    firstMs: t1 - t0,
    retryMs: t2 - t1,
    retryText: retry?.content?.[0]?.text,
    retryIsError: retry?.isError === true,
    retryTally: tally(retry)
  };
}

async function main() {
  const rec = recordingFetch();
  const client = new Client({ name: 'cancel-client', version: '1.0.0' });
  client.onerror = e => log(`onerror: ${e?.message ?? e}`);
  const transport = new StreamableHTTPClientTransport(new URL(sidecarUrl), { fetch: rec.fetch });
  await client.connect(transport);
  report.protocolVersion = transport.protocolVersion;

  report.irreversible = await timedOutThenRetried(client, 'create_ticket', { title: 'cancelled' });
  report.keyed = await timedOutThenRetried(client, 'book_slot', { slot: 's1' });
  report.posts = rec.posts;

  const cancels = rec.posts.filter(p => p.method === 'notifications/cancelled');
  assert.equal(cancels.length, 2, 'the SDK cancelled each timed-out call');
  for (const c of [report.irreversible, report.keyed]) {
    assert.ok(c.first.error, 'the first call timed out on the client');
    assert.match(c.first.error, /timed out/i);
  }

  const i = report.irreversible;
  assert.notEqual(i.retryTally?.code, 'IDEMPOTENCY_IN_PROGRESS', 'the retry did not wait for the call');
  assert.equal(i.retryIsError, true);
  assert.equal(i.retryTally?.code, 'OUTCOME_UNKNOWN', 'the cancelled irreversible call is unknown');
  assert.equal(i.retryTally?.state, 'outcome_unknown');

  const k = report.keyed;
  assert.equal(k.retryIsError, false, `the keyed retry was re-dispatched: ${JSON.stringify(k)}`);
  assert.equal(k.retryText, 'booked s1');

  await transport.terminateSession();
  await client.close();
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
