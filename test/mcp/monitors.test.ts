//! Monitors through MCP: `monitor-list` and `monitor-create` answer what the account API answers
//! (the same service, the same role table and audit log); a key limited to some tools may watch
//! only those; a bad definition is a refusal carrying `invalid_request` and its fields.
import test, { type ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiUrl, newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { createAjv } from '../../lib/json-schema.js';

async function connect(t: ExecutionContext, key: string): Promise<Client> {
  const client = new Client({ name: 'monitor-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  t.teardown(() => client.close());
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

const MONITOR = {
  name: 'Agent hash',
  tool: 'hash-text',
  input: { text: 'agent' },
  schedule: { every: '1h' },
  assertions: [{ path: '/algorithm', op: 'eq', value: 'sha256' }],
};

test('monitor-create makes the monitor the account API lists, audited as the key that made it; monitor-list lists it', async (t) => {
  const account = await newAccount(10);
  const client = await connect(t, account.apiKey);
  const { tools } = await client.listTools();
  const create = tools.find((tool) => tool.name === 'monitor-create')!;
  t.like(create.annotations, { readOnlyHint: false });

  const made = await call(client, 'monitor-create', MONITOR);
  t.falsy(made.isError, textOf(made));
  const monitor = made.structuredContent as UncheckedJson;
  const validate = createAjv().compile(create.outputSchema!);
  t.true(validate(structuredClone(monitor)), JSON.stringify(validate.errors));
  t.like(monitor, { name: 'Agent hash', tool: 'hash-text', state: 'pending' });

  const rest = await request('GET', `/api/v1/account/monitors/${monitor.id}`, { token: account.ownerToken });
  t.is(rest.status, 200);
  t.is(rest.body.name, 'Agent hash');
  const listed = (await call(client, 'monitor-list', {})).structuredContent as UncheckedJson;
  t.deepEqual(
    listed.items.map((m: UncheckedJson) => m.id),
    [monitor.id],
  );
  const audit = await request('GET', '/api/v1/account/audit-log?action=monitor.created', { token: account.ownerToken });
  t.like(audit.body.items[0], {
    actor: { type: 'owner', credential: account.apiKey.slice(0, 12) },
    target: { type: 'monitor', id: monitor.id },
  });
});

test('a key limited to some tools watches only those; a definition that cannot run is refused with its fields', async (t) => {
  const account = await newAccount(10);
  const key = await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { tools: ['hash-text'] } });
  const client = await connect(t, key.body.key);
  const refused = await call(client, 'monitor-create', { ...MONITOR, tool: 'http-request', input: { url: 'https://example.com/' } });
  t.true(refused.isError);
  t.regex(textOf(refused), /^tool_not_allowed: /);
  const bad = await call(client, 'monitor-create', { ...MONITOR, schedule: { every: 'often' } });
  t.true(bad.isError);
  t.regex(textOf(bad), /^invalid_request: /);
  t.like((bad._meta as UncheckedJson).problem, { code: 'invalid_request', errors: [{ field: '/schedule/every' }] });
  t.is((await request('GET', '/api/v1/account/monitors', { token: account.ownerToken })).body.items.length, 0);
});
