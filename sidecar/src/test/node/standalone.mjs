// The standalone GET stream of a client that gets no priming event, through the sidecar. Run by
// SidecarTypeScriptInteropIT.
//
//   node standalone.mjs <sidecar MCP URL> <server control base URL>
//
// The client sends MCP-Protocol-Version 2025-06-18 on every request after initialize (as a client
// from before 2025-11-25 would), so the sidecar sends it no priming event and the client holds
// no event id for its GET stream. That stream is cut; the SDK reconnects with a plain GET (no
// Last-Event-ID). The server (one standalone stream per session) still has the sidecar's
// upstream GET open, so the sidecar must attach the client to that stream again rather than
// forward a second GET the server would refuse with 409. A tools/list_changed notification the
// server sends afterwards must reach the client.
//
// Asserts in JS, then prints one line `RESULT {json}` to stdout (also on failure, with
// "ok":false). Exit code 0 only when every assertion held.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [sidecarUrl, controlUrl] = process.argv.slice(2);
if (!sidecarUrl || !controlUrl) {
  process.stderr.write('usage: node standalone.mjs <MCP URL> <server control base URL>\n');
  process.exit(64);
}
const SCRIPT_TIMEOUT_MS = Number(process.env.SCRIPT_TIMEOUT_MS ?? 30000);
const WAIT_MS = Number(process.env.WAIT_MS ?? 10000);
const OLD_VERSION = '2025-06-18';

const report = { ok: false, gets: [] };

function log(line) {
  process.stderr.write(`[ts-standalone] ${line}\n`);
}

function finish(code) {
  process.stdout.write('RESULT ' + JSON.stringify(report) + '\n', () => process.exit(code));
}

setTimeout(() => {
  report.error = `standalone.mjs did not finish within ${SCRIPT_TIMEOUT_MS} ms`;
  finish(2);
}, SCRIPT_TIMEOUT_MS).unref();

/** A promise with its resolve function, failing after WAIT_MS with `what`. */
function signal(what) {
  let resolve;
  const p = new Promise((res, rej) => {
    resolve = res;
    setTimeout(() => rej(new Error(`timed out waiting for ${what}`)), WAIT_MS).unref();
  });
  p.catch(() => {}); // whoever awaits it still sees the rejection
  return { p, resolve };
}

const gets = [signal('the first GET stream'), signal('the reconnecting GET')];
const aborts = [];

async function recordingFetch(url, init = {}) {
  if ((init.method ?? 'GET') !== 'GET') {
    return fetch(url, init);
  }
  const n = report.gets.length;
  const entry = { lastEventId: new Headers(init.headers).get('last-event-id') };
  report.gets.push(entry);
  const ac = new AbortController();
  init.signal?.addEventListener('abort', () => ac.abort(init.signal.reason), { once: true });
  aborts.push(() => ac.abort(new Error('GET stream cut by the test')));
  const res = await fetch(url, { ...init, signal: ac.signal });
  entry.status = res.status;
  entry.contentType = res.headers.get('content-type') ?? undefined;
  if (res.status >= 400) {
    entry.body = await res.clone().text();
  }
  gets[n]?.resolve();
  return res;
}

async function main() {
  const client = new Client({ name: 'standalone', version: '1.0.0' });
  client.onerror = e => log(e?.message ?? String(e));
  const changed = signal('notifications/tools/list_changed');
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
  const transport = new StreamableHTTPClientTransport(new URL(sidecarUrl), {
    fetch: recordingFetch,
    requestInit: { headers: { 'mcp-protocol-version': OLD_VERSION } }
  });
  await client.connect(transport);

  await gets[0].p;
  assert.equal(report.gets[0].status, 200, 'the standalone GET stream opened');
  aborts[0]();
  await gets[1].p;
  const again = report.gets[1];
  assert.equal(again.lastEventId, null, 'no event id to resume from');
  assert.equal(again.status, 200, `the plain GET reconnect is accepted (${again.body ?? ''})`);
  assert.match(again.contentType ?? '', /^text\/event-stream/);

  const r = await fetch(new URL('/control/notify', controlUrl), { method: 'POST' });
  report.notifiedSessions = (await r.json()).sessions;
  await changed.p;
  report.notified = true;

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
