// What the conformance suite's server-sse-polling scenario means to test (SEP-1699), done with the
// TypeScript SDK client at its own protocol version (2025-11-25): CLI 0.1.16 sends 2025-03-26 on its
// raw probe, so SDK servers neither prime nor close the stream there (MCP-NOTES.md).
//
//   node reconnect-probe.mjs URL
//
// Calls test_reconnection once. A server with an event store sends a priming event, closes the POST
// stream mid-call, and the client must resume with GET + Last-Event-ID to get the result. Prints
// one line `RESULT {"ok":bool,"text":...,"error":...,"requests":[...],"tokens":[...]}` and exits 0
// (the Java test judges); gives up after 20 s.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.argv[2];
const requests = [];
const tokens = [];

function report(r) {
  process.stdout.write('RESULT ' + JSON.stringify({ ...r, requests, tokens }) + '\n');
  process.exit(0);
}

setTimeout(() => report({ ok: false, error: 'no result within 20 s' }), 20000).unref();

async function logged(input, init) {
  const headers = new Headers(init?.headers);
  const res = await fetch(input, init);
  requests.push({
    method: init?.method ?? 'GET',
    lastEventId: headers.get('last-event-id'),
    status: res.status
  });
  return res;
}

try {
  const client = new Client(
    { name: 'tally-reconnect-probe', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } }
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: logged,
    // Reconnect at once; the server's retry: field (1 s) takes precedence where it sends one.
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 }
  });
  await client.connect(transport);
  const result = await client.callTool({ name: 'test_reconnection', arguments: {} }, undefined, {
    onresumptiontoken: t => tokens.push(t),
    timeout: 15000
  });
  report({ ok: !result.isError, text: result.content?.[0]?.text ?? null, meta: result._meta ?? null });
} catch (err) {
  report({ ok: false, error: String(err?.message ?? err) });
}
