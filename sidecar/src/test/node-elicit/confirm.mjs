// A 2026-07-28 client on the TypeScript SDK v2 (@modelcontextprotocol/client) that declares
// URL-mode elicitation and calls a tool Tally holds for confirmation. Its elicitation handler acts
// as the person would: it confirms the action on Tally's actions API (same bearer token as the
// agent: its actor) and then accepts; the SDK re-sends the call with inputResponses and the exact
// requestState. Prints one line "RESULT {json}" and exits 0 when the flow completed.
//
// Usage: node confirm.mjs <mcp url> <admin base url> <bearer token> [decline]
// With "decline" the handler confirms nothing and declines: the SDK re-sends with that answer.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';

const [mcpUrl, adminBase, token, mode] = process.argv.slice(2);
const report = { posts: [], elicitations: [] };
const log = m => process.stderr.write(`[confirm.mjs] ${m}\n`);
process.stdin.on('end', () => process.exit(3)); // the test JVM went away
process.stdin.resume();

function finish(code) {
  process.stdout.write('RESULT ' + JSON.stringify(report) + '\n', () => process.exit(code));
}

// Records every POST the client makes: the JSON-RPC id and which MRTR members it carried.
const recordingFetch = async (url, init) => {
  let body;
  try {
    body = JSON.parse(init?.body ?? 'null');
  } catch {
    body = null;
  }
  const res = await fetch(url, init);
  if (body && body.method) {
    report.posts.push({
      id: body.id ?? null,
      method: body.method,
      name: body.params?.name ?? null,
      inputResponses: body.params?.inputResponses ?? null,
      hasRequestState: typeof body.params?.requestState === 'string',
      requestStatePrefix: typeof body.params?.requestState === 'string'
        ? body.params.requestState.slice(0, 7) : null,
      urlMode: body.params?._meta?.['io.modelcontextprotocol/clientCapabilities']?.elicitation?.url !== undefined,
      status: res.status
    });
  }
  return res;
};

async function main() {
  report.sdk = JSON.parse(
    readFileSync(new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url))
  ).version;
  const client = new Client(
    { name: 'tally-elicit-fixture', version: '1.0.0' },
    {
      capabilities: { elicitation: { url: {} } },
      // The SDK's default is the legacy handshake; pin the 2026-07-28 era (server/discover first).
      versionNegotiation: { mode: { pin: '2026-07-28' } }
    }
  );
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const p = request.params ?? {};
    const seen = { mode: p.mode, url: p.url, message: p.message };
    report.elicitations.push(seen);
    if (p.mode !== 'url') {
      return { action: 'decline' };
    }
    // The person follows the link: confirm the action as its own actor on the actions API.
    const actionId = new URL(p.url).pathname.split('/').pop();
    seen.actionId = actionId;
    if (mode === 'decline') {
      return { action: 'decline' };
    }
    const res = await fetch(`${adminBase}/v1/actions/${actionId}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}'
    });
    seen.confirmStatus = res.status;
    seen.confirm = await res.json().catch(() => null);
    return { action: 'accept' };
  });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    fetch: recordingFetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } }
  });
  await client.connect(transport);
  report.protocolVersion = transport.protocolVersion ?? client.getNegotiatedProtocolVersion?.() ?? null;
  await client.listTools();
  const result = await client.callTool({ name: 'deploy', arguments: { region: 'eu-west', version: '7' } });
  report.result = result;
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
