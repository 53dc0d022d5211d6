// The "everything" MCP server that the conformance suite's server scenarios expect (tools, resources,
// prompts, logging, completion, subscriptions, DNS rebinding protection), written for Tally on the
// TypeScript SDK's low-level Server and StreamableHTTPServerTransport. Run by SidecarConformanceIT,
// once directly and once behind the sidecar.
//
//   node everything-server.mjs [--no-event-store | --prime-every-version]
//
// With an event store (the default) the server keeps SSE history: its events carry ids, it sends a
// priming event (and `retry:`) to clients at protocol version 2025-11-25 or later, and it can close
// a POST stream mid-call for the client to resume with GET + Last-Event-ID. With --no-event-store
// it keeps none, like most servers: no ids, no priming, no resumption of its own. With
// --prime-every-version it keeps the history and treats every client as one at 2025-11-25: every
// POST stream starts with the recommended priming event and a `retry:` field, and the reconnection
// tool closes its stream mid-call for every client (the conformance CLI probes at 2025-03-26).
//
// Tool annotations are what a real server would declare: tools that only return fixed content are
// readOnlyHint; tools that talk back to the client while they run (log, progress, sampling,
// elicitation, closing their stream) or fail are left unannotated, i.e. writes to MCP and to Tally.
//
// Control endpoint (not MCP, for the Java test):
//   GET /control/calls  {"calls":{"<tool>":n,...},"executionIds":{"<tool>":[...],...}}
//
// Prints one JSON line {"port":N,"url":"...","eventStore":bool} to stdout once listening on
// 127.0.0.1, port 0. Exits when stdin closes (the parent test went away) or on SIGTERM.

import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  isInitializeRequest
} from '@modelcontextprotocol/sdk/types.js';

const EVENT_STORE = !process.argv.includes('--no-event-store');
const PRIME_EVERY_VERSION = process.argv.includes('--prime-every-version');

// A 1x1 PNG and a WAV header with two bytes of silence: the smallest valid media of each kind.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const NO_ARGS = { type: 'object', properties: {} };
const READ_ONLY = { readOnlyHint: true, openWorldHint: false };

const calls = {};
const executionIds = {};

function text(t) {
  return { content: [{ type: 'text', text: t }] };
}

function pause(ms) {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** An elicitation request on the call's own stream; the answer is echoed back as the result. */
async function elicit(extra, message, requestedSchema) {
  const answer = await extra.sendRequest(
    { method: 'elicitation/create', params: { message, requestedSchema } },
    ElicitResultSchema
  );
  return text(`elicitation: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

/** name → { tool: the tools/list entry, run(args, extra): the result }. */
const TOOLS = new Map(
  [
    {
      tool: { name: 'test_simple_text', description: 'Returns one text block.', inputSchema: NO_ARGS, annotations: READ_ONLY },
      run: async () => text('This is a simple text response for testing.')
    },
    {
      tool: { name: 'test_image_content', description: 'Returns a PNG image.', inputSchema: NO_ARGS, annotations: READ_ONLY },
      run: async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] })
    },
    {
      tool: { name: 'test_audio_content', description: 'Returns a WAV clip.', inputSchema: NO_ARGS, annotations: READ_ONLY },
      run: async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] })
    },
    {
      tool: { name: 'test_embedded_resource', description: 'Returns an embedded text resource.', inputSchema: NO_ARGS, annotations: READ_ONLY },
      run: async () => ({
        content: [
          {
            type: 'resource',
            resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }
          }
        ]
      })
    },
    {
      tool: { name: 'test_multiple_content_types', description: 'Returns text, an image and a resource.', inputSchema: NO_ARGS, annotations: READ_ONLY },
      run: async () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' }
          }
        ]
      })
    },
    {
      tool: { name: 'test_tool_with_logging', description: 'Logs three messages while it runs.', inputSchema: NO_ARGS },
      run: async (args, extra) => {
        for (const [i, data] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
          if (i > 0) {
            await pause(50);
          }
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'everything', data } });
        }
        return text('Tool with logging executed successfully');
      }
    },
    {
      tool: { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100.', inputSchema: NO_ARGS },
      run: async (args, extra) => {
        const progressToken = extra._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (progress > 0) {
            await pause(50);
          }
          if (progressToken !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress, total: 100, message: `step ${progress} of 100` }
            });
          }
        }
        return text(`progress reported to ${JSON.stringify(progressToken ?? null)}`);
      }
    },
    {
      tool: { name: 'test_error_handling', description: 'Always fails with a tool error.', inputSchema: NO_ARGS },
      run: async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] })
    },
    {
      tool: {
        name: 'test_reconnection',
        description: 'Closes its SSE stream mid-call when the client can resume, then answers (SEP-1699).',
        inputSchema: NO_ARGS
      },
      run: async (args, extra) => {
        // The SDK offers closeSSEStream only with an event store and a client at 2025-11-25 or later:
        // closing the stream of any other client would lose the answer.
        const closed = typeof extra.closeSSEStream === 'function';
        if (closed) {
          extra.closeSSEStream();
        }
        await pause(100);
        return text(`reconnection test completed (stream closed mid-call: ${closed})`);
      }
    },
    {
      tool: {
        name: 'test_sampling',
        description: 'Asks the client to sample its LLM.',
        inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] }
      },
      run: async (args, extra) => {
        const answer = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 }
          },
          CreateMessageResultSchema
        );
        return text(`LLM response: ${answer.content?.text ?? JSON.stringify(answer.content)}`);
      }
    },
    {
      tool: {
        name: 'test_elicitation',
        description: 'Asks the user for a name and an email address.',
        inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }
      },
      run: (args, extra) =>
        elicit(extra, String(args.message), {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" }
          },
          required: ['username', 'email']
        })
    },
    {
      tool: { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation whose fields have defaults (SEP-1034).', inputSchema: NO_ARGS },
      run: (args, extra) =>
        elicit(extra, 'Please review the fields, defaults filled in', {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true }
          },
          required: []
        })
    },
    {
      tool: { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with every enum form (SEP-1330).', inputSchema: NO_ARGS },
      run: (args, extra) => {
        const titled = n => [1, 2, 3].map(i => ({ const: `value${i}`, title: `${n} ${i}` }));
        return elicit(extra, 'Please pick from the enums', {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'One option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', description: 'One titled option', oneOf: titled('Option') },
            legacyEnum: {
              type: 'string',
              description: 'One option (legacy titles)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three']
            },
            untitledMulti: {
              type: 'array',
              description: 'Several options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] }
            },
            titledMulti: {
              type: 'array',
              description: 'Several titled options',
              minItems: 1,
              maxItems: 3,
              items: { anyOf: titled('Choice') }
            }
          },
          required: []
        });
      }
    },
    {
      tool: {
        name: 'json_schema_2020_12_tool',
        description: 'Declares a JSON Schema 2020-12 input schema ($schema, $defs, additionalProperties).',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
          properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
          additionalProperties: false
        },
        annotations: READ_ONLY
      },
      run: async args => text(`called with ${JSON.stringify(args)}`)
    }
  ].map(t => [t.tool.name, t])
);

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
  { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png', blob: PNG },
  { uri: 'test://watched-resource', name: 'watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }
];
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

const PROMPTS = new Map(
  [
    {
      prompt: { name: 'test_simple_prompt', description: 'A prompt without arguments' },
      get: () => [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]
    },
    {
      prompt: {
        name: 'test_prompt_with_arguments',
        description: 'A prompt with two required arguments',
        arguments: [
          { name: 'arg1', description: 'First argument', required: true },
          { name: 'arg2', description: 'Second argument', required: true }
        ]
      },
      get: a => [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` } }]
    },
    {
      prompt: {
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt that embeds a resource',
        arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }]
      },
      get: a => [
        { role: 'user', content: { type: 'resource', resource: { uri: a.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } }
      ]
    },
    {
      prompt: { name: 'test_prompt_with_image', description: 'A prompt with an image' },
      get: () => [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please describe the image above.' } }
      ]
    }
  ].map(p => [p.prompt.name, p])
);

function newMcpServer() {
  const server = new Server(
    { name: 'tally-everything-server', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {}
      }
    }
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TOOLS.values()].map(t => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const t = TOOLS.get(name);
    if (!t) {
      return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
    }
    calls[name] = (calls[name] ?? 0) + 1;
    (executionIds[name] ??= []).push(request.params._meta?.['dev.tally/executionId'] ?? null);
    return t.run(args, extra);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: RESOURCES.map(({ uri, name, mimeType }) => ({ uri, name, mimeType }))
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' }]
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async request => {
    const uri = request.params.uri;
    const r = RESOURCES.find(x => x.uri === uri);
    if (r) {
      const { name, ...contents } = r;
      return { contents: [contents] };
    }
    const m = TEMPLATE.exec(uri);
    if (m) {
      const id = decodeURIComponent(m[1]);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, data: `Data for ID: ${id}` }) }] };
    }
    throw new Error(`unknown resource ${uri}`);
  });
  const subscriptions = new Set();
  server.setRequestHandler(SubscribeRequestSchema, async request => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async request => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [...PROMPTS.values()].map(p => p.prompt) }));
  server.setRequestHandler(GetPromptRequestSchema, async request => {
    const p = PROMPTS.get(request.params.name);
    if (!p) {
      throw new Error(`unknown prompt ${request.params.name}`);
    }
    return { messages: p.get(request.params.arguments ?? {}) };
  });
  server.setRequestHandler(CompleteRequestSchema, async request => {
    const prefix = String(request.params.argument?.value ?? '');
    const values = ['paris', 'park', 'party'].filter(v => v.startsWith(prefix));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

/** SSE history of one session's streams, for resumption: event id = "<stream>_<seq>". */
function newEventStore() {
  const events = [];
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}_${String(events.length).padStart(8, '0')}`;
      events.push({ eventId, streamId, message });
      return eventId;
    },
    async getStreamIdForEventId(eventId) {
      return events.find(e => e.eventId === eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const at = events.findIndex(e => e.eventId === lastEventId);
      if (at < 0) {
        throw new Error(`unknown event id ${lastEventId}`);
      }
      const streamId = events[at].streamId;
      for (const e of events.slice(at + 1)) {
        if (e.streamId === streamId && Object.keys(e.message).length > 0) {
          await send(e.eventId, e.message);
        }
      }
      return streamId;
    }
  };
}

/** Open sessions: Mcp-Session-Id → transport. */
const transports = new Map();

function rpcError(res, status, message) {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
}

// The SDK's Express app: JSON body parsing and, bound to 127.0.0.1, its Host header check against
// DNS rebinding (403 for a Host that is not localhost, 127.0.0.1 or [::1]).
const app = createMcpExpressApp({ host: '127.0.0.1' });

app.all('/mcp', async (req, res) => {
  try {
    const version = req.headers['mcp-protocol-version'];
    if (PRIME_EVERY_VERSION && version && version < '2025-11-25') {
      // The SDK primes, and offers closeSSEStream, by the request's protocol version only; it
      // reads the raw headers.
      req.headers['mcp-protocol-version'] = '2025-11-25';
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        if (req.rawHeaders[i].toLowerCase() === 'mcp-protocol-version') {
          req.rawHeaders[i + 1] = '2025-11-25';
        }
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) {
        rpcError(res, 404, 'Session not found');
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        rpcError(res, 400, 'Bad Request: no session');
        return;
      }
      const server = newMcpServer();
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: EVENT_STORE ? newEventStore() : undefined,
        retryInterval: EVENT_STORE ? 1000 : undefined,
        onsessioninitialized: id => transports.set(id, transport)
      });
      transport.onclose = () => {
        if (transport.sessionId) {
          transports.delete(transport.sessionId);
        }
      };
      await server.connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  } catch (err) {
    log(`error: ${err?.stack ?? err}`);
    if (!res.headersSent) {
      rpcError(res, 500, 'Internal server error');
    }
  }
});

app.get('/control/calls', (req, res) => res.json({ calls, executionIds }));

function log(line) {
  process.stderr.write(`[everything-server] ${line}\n`);
}

const http = app.listen(0, '127.0.0.1', () => {
  const { port } = http.address();
  process.stdout.write(JSON.stringify({ port, url: `http://127.0.0.1:${port}/mcp`, eventStore: EVENT_STORE }) + '\n');
});

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
