// An MCP server on the TypeScript SDK's StreamableHTTPServerTransport: stateful sessions and
// deliberately NO eventStore, so it puts no `id:` on its SSE events and cannot resume a stream
// itself. Run by SidecarTypeScriptInteropIT behind the sidecar.
//
// Tools:
//   create_ticket  unannotated write (to MCP: destructive, not idempotent). Counts a side effect,
//                  sends one progress notification (when the call asked for progress), then
//                  waits until the test releases it (POST /control/release) before it returns
//                  its result; unreleased after HOLD_LIMIT_MS it fails.
//   count_effects  read-only: the side-effect count.
//   book_slot      a keyed write (idempotentHint): books its slot once per Idempotency-Key. The
//                  first receipt of a key waits until released or until its client cancels it
//                  (notifications/cancelled aborts the request); a cancelled booking does nothing.
//                  A later receipt of the key books at once, or returns the earlier booking.
// Control endpoints (not MCP, for the Java test):
//   GET  /control/effects  {"sideEffects":n,"executionIds":[...],"idempotencyKeys":[...],
//                          "bookings":{key: "pending"|"aborted"|"booked"},"slotReceipts":[...]}
//   POST /control/release  lets the create_ticket calls waiting now finish: {"released":n}
//   POST /control/notify   sends notifications/tools/list_changed to every session (on its
//                          standalone GET stream): {"sessions":n}
//
// Prints one JSON line {"port":N,"url":"..."} to stdout once listening on 127.0.0.1, port 0.
// Exits when stdin closes (the parent test went away) or on SIGTERM.

import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  isInitializeRequest
} from '@modelcontextprotocol/sdk/types.js';

const HOLD_LIMIT_MS = Number(process.env.HOLD_LIMIT_MS ?? 15000);

const effects = {
  sideEffects: 0,
  executionIds: [],
  idempotencyKeys: [],
  bookings: {},
  slotReceipts: []
};
const waiting = [];

/** Lets every create_ticket call waiting now finish; later calls wait for the next release. */
function release() {
  const n = waiting.length;
  waiting.splice(0).forEach(resolve => resolve(true));
  return n;
}

/** Resolves true when released, false when HOLD_LIMIT_MS passed first (the tool then fails). */
function held() {
  return new Promise(resolve => {
    waiting.push(resolve);
    setTimeout(() => resolve(false), HOLD_LIMIT_MS).unref();
  });
}

/** Resolves 'released', 'cancelled' (the request's signal aborted) or 'expired'. */
function heldOrCancelled(signal) {
  return new Promise(resolve => {
    waiting.push(() => resolve('released'));
    signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    setTimeout(() => resolve('expired'), HOLD_LIMIT_MS).unref();
  });
}

async function bookSlot(request, extra) {
  const slot = request.params.arguments?.slot;
  const key = extra.requestInfo?.headers?.['idempotency-key'] ?? null;
  const executionId = request.params._meta?.['dev.tally/executionId'] ?? null;
  effects.slotReceipts.push({ key, executionId });
  const booked = { content: [{ type: 'text', text: `booked ${slot}` }] };
  if (key !== null && effects.bookings[key] === 'booked') {
    return booked;
  }
  if (key === null || !(key in effects.bookings)) {
    effects.bookings[key] = 'pending';
    const outcome = await heldOrCancelled(extra.signal);
    if (outcome !== 'released') {
      if (effects.bookings[key] !== 'booked') {
        effects.bookings[key] = 'aborted'; // a re-dispatch under the key may have booked already
      }
      log(`book_slot ${slot} ${outcome}: nothing booked`);
      return { isError: true, content: [{ type: 'text', text: `not booked: ${outcome}` }] };
    }
  }
  effects.bookings[key] = 'booked';
  log(`book_slot ${slot} booked`);
  return booked;
}

const TOOLS = [
  {
    name: 'create_ticket',
    description: 'Creates a ticket (a side effect). Slow: reports progress, then finishes.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }
  },
  {
    name: 'count_effects',
    description: 'How many tickets were created.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true }
  },
  {
    name: 'book_slot',
    description: 'Books a slot once per Idempotency-Key; cancellable while it waits.',
    inputSchema: { type: 'object', properties: { slot: { type: 'string' } }, required: ['slot'] },
    annotations: { idempotentHint: true }
  }
];

function newMcpServer() {
  const server = new Server(
    { name: 'ts-upstream', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } }
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    if (name === 'count_effects') {
      return {
        content: [{ type: 'text', text: String(effects.sideEffects) }],
        structuredContent: { sideEffects: effects.sideEffects }
      };
    }
    if (name === 'book_slot') {
      return bookSlot(request, extra);
    }
    if (name !== 'create_ticket') {
      return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
    }
    const n = ++effects.sideEffects;
    effects.executionIds.push(request.params._meta?.['dev.tally/executionId'] ?? null);
    effects.idempotencyKeys.push(extra.requestInfo?.headers?.['idempotency-key'] ?? null);
    log(`create_ticket #${n} started`);
    const progressToken = request.params._meta?.progressToken;
    if (progressToken !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: 1, total: 2, message: 'ticket reserved' }
      });
    }
    if (!(await held())) {
      log(`create_ticket #${n} was never released`);
      return { isError: true, content: [{ type: 'text', text: 'test fixture: never released' }] };
    }
    log(`create_ticket #${n} done`);
    return { content: [{ type: 'text', text: `ticket T-${n} created: ${args.title}` }] };
  });
  return server;
}

/** Open sessions: Mcp-Session-Id → transport, and the MCP server on it. */
const transports = new Map();
const servers = new Map();

async function readJson(req) {
  const chunks = [];
  for await (const c of req) {
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length === 0 ? undefined : JSON.parse(text);
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function handleMcp(req, res) {
  const sessionId = req.headers['mcp-session-id'];
  let body;
  if (req.method === 'POST') {
    try {
      body = await readJson(req);
    } catch {
      send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
  }
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (!transport) {
    if (sessionId || req.method !== 'POST' || !isInitializeRequest(body)) {
      send(res, sessionId ? 404 : 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: sessionId ? 'Session not found' : 'Bad Request: no session' }
      });
      return;
    }
    const server = newMcpServer();
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: id => {
        transports.set(id, transport);
        servers.set(id, server);
      },
      // Frequent ": keepalive" comments, so they cross the sidecar during the test.
      keepAliveMs: 250
      // No eventStore: this server keeps no SSE history.
    });
    transport.onclose = () => {
      if (transport.sessionId) {
        transports.delete(transport.sessionId);
        servers.delete(transport.sessionId);
      }
    };
    await server.connect(transport);
  }
  await transport.handleRequest(req, res, body);
}

const http = createServer((req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  const done = p =>
    p.catch(err => {
      log(`error: ${err?.stack ?? err}`);
      if (!res.headersSent) {
        send(res, 500, { error: String(err) });
      } else {
        res.destroy();
      }
    });
  if (path === '/mcp') {
    done(handleMcp(req, res));
  } else if (path === '/control/effects' && req.method === 'GET') {
    send(res, 200, effects);
  } else if (path === '/control/release' && req.method === 'POST') {
    send(res, 200, { released: release() });
  } else if (path === '/control/notify' && req.method === 'POST') {
    done(
      Promise.all([...servers.values()].map(s => s.sendToolListChanged())).then(() =>
        send(res, 200, { sessions: servers.size })
      )
    );
  } else {
    send(res, 404, { error: 'not found' });
  }
});

function log(line) {
  process.stderr.write(`[ts-server] ${line}\n`);
}

function shutdown() {
  for (const t of transports.values()) {
    t.close().catch(() => {});
  }
  http.closeAllConnections?.();
  http.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}

process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('end', shutdown);
process.stdin.on('error', shutdown);
process.stdin.resume();

http.listen(0, '127.0.0.1', () => {
  const { port } = http.address();
  process.stdout.write(JSON.stringify({ port, url: `http://127.0.0.1:${port}/mcp` }) + '\n');
});
