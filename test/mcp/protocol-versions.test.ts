//! The protocol revisions `/mcp` serves, as docs/MCP.md states them: those of the official
//! TypeScript SDK it runs on (1.32.2: 2024-10-07 to 2025-11-25). A client that asks for one of them
//! gets it; a client that asks `initialize` for 2026-07-28 is answered 2025-11-25, the newest the
//! server speaks, and may go on with it or leave; one that skips `initialize`, as a 2026-07-28
//! client does, is answered 400 with the revisions the server supports.
import test from 'ava';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { newAccount, request, type UncheckedJson } from '../helpers/api.js';

/** The revisions docs/MCP.md names. */
const SERVED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const accept = { accept: 'application/json, text/event-stream' };

/** The JSON-RPC message of an answer, sent as JSON or as one event of a stream. */
function messageOf(body: unknown): UncheckedJson {
  if (typeof body !== 'string') return body as UncheckedJson;
  const data = body.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data!.slice('data: '.length));
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'revisions', version: '1' } },
});

test('the SDK the server runs serves the revisions docs/MCP.md names, 2025-11-25 the newest', (t) => {
  t.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], SERVED);
  t.is(LATEST_PROTOCOL_VERSION, '2025-11-25');
});

test('initialize: each served revision is answered as asked; 2026-07-28 is answered 2025-11-25', async (t) => {
  const account = await newAccount(1);
  for (const version of [...SERVED, '2026-07-28']) {
    const res = await request('POST', '/mcp', { token: account.apiKey, body: initialize(version), headers: accept });
    t.is(res.status, 200, version);
    const answer = messageOf(res.body);
    t.is(answer.result.protocolVersion, version === '2026-07-28' ? '2025-11-25' : version, version);
    t.like(answer.result, { serverInfo: { name: 'utility-tools' }, capabilities: { tools: {} } });
  }
});

test('a request of revision 2026-07-28 without initialize is answered 400, naming the revisions the server supports', async (t) => {
  const account = await newAccount(1);
  const res = await request('POST', '/mcp', {
    token: account.apiKey,
    body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    headers: { ...accept, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  });
  t.is(res.status, 400);
  const answer = messageOf(res.body);
  t.is(answer.error.code, -32000);
  t.is(answer.error.message, `Bad Request: Unsupported protocol version: 2026-07-28 (supported versions: ${SERVED.join(', ')})`);
  // The same request as a 2025-11-25 client sends it (after its initialize) is served.
  const served = await request('POST', '/mcp', {
    token: account.apiKey,
    body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
    headers: { ...accept, 'mcp-protocol-version': '2025-11-25' },
  });
  t.is(served.status, 200);
  t.true(messageOf(served.body).result.tools.length > 20);
});
