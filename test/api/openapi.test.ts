//! The OpenAPI document and the docs pages, served by the real app (its routers, its wiring)
//! without a stack: no request here reaches the database or Temporal, which stay unconnected.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import test from 'ava';
import type Router from '@koa/router';
import { Client } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createApp } from '../../api/app.js';
import { buildOpenApi, type OpenApiDocument } from '../../api/openapi.js';
import { CATALOGUE } from '../../domain/tools/catalogue.js';
import { loadConfig } from '../../lib/config.js';
import { ERRORS, type ErrorCode } from '../../contracts/errors.js';
import { addFormats } from '../../lib/json-schema.js';
import { EVENT_KINDS } from '../../contracts/event-kinds.js';
import { createLogger } from '../../lib/logger.js';
import { createMetrics } from '../../lib/metrics.js';
import { publishedCatalogueSchemas } from '../../domain/tools/schemas.js';
import type { UncheckedJson } from '../helpers/api.js';
import { AUTHORIZATION_SERVER_PATHS } from '../../api/routes/oauth.js';

const BASE_URL = 'https://api.example.test';
/** Statuses every tool call can answer with (the table of contracts/errors.ts). */
const TOOL_CALL_STATUSES = ['200', '400', '401', '402', '403', '409', '413', '415', '429', '500', '503', '504'];

const mongo = new MongoClient('mongodb://127.0.0.1:9/openapi_test', { serverSelectionTimeoutMS: 100 });
const temporal = new Client(); // lazy: connects on first use, which never comes
const app = createApp({
  config: loadConfig({
    MONGODB_URL: 'mongodb://127.0.0.1:9/openapi_test',
    SECRET_KEY: '0'.repeat(64),
    ADMIN_TOKEN: 'admin',
    PUBLIC_BASE_URL: BASE_URL,
  }),
  db: mongo.db(),
  client: temporal,
  log: createLogger({ name: 'test', level: 'silent' }),
  metrics: createMetrics(),
});
let server: Server;
let origin: string;
let doc: OpenApiDocument;

test.before(async () => {
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const res = await fetch(`${origin}/api/v1/openapi.json`);
  doc = (await res.json()) as OpenApiDocument;
});

test.after.always(async () => {
  server?.close();
  await temporal.connection.close().catch(() => {});
  await mongo.close();
});

/** Every route registered on the app's routers (each `router.routes()` middleware carries its router). */
function servedRoutes() {
  const routers = app.middleware.map((m) => (m as { router?: Router }).router).filter((r): r is Router => !!r);
  return routers.flatMap((r) => r.stack).filter((layer) => layer.methods.length > 0);
}

function documentedOperations() {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => ({ path, method: method.toUpperCase() })));
}

/** A documented path with its `{param}`s filled in, as a client would send it. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

test('the document is valid OpenAPI 3.1', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
  t.deepEqual(result.errors, undefined);
  t.true(result.valid);
  t.is(validator.version, '3.1');
});

test('the validator does reject a broken document', async (t) => {
  const broken = structuredClone(doc) as unknown as Record<string, UncheckedJson>;
  broken.paths['/healthz'].get.responses['200'].content = 'text/plain';
  t.false((await new Validator().validate(broken)).valid);
});

test('every example in the document matches its schema', async (t) => {
  const validator = new Validator();
  await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
  const resolved = validator.resolveRefs() as unknown as OpenApiDocument;
  // Not the service's set-up (lib/json-schema.ts): the document's schemas are OpenAPI's dialect,
  // read loosely, and an example must be complete as written, with no defaults filled in.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  let checked = 0;
  const visit = (node: unknown, where: string) => {
    if (node === null || typeof node !== 'object') return;
    const media = node as { schema?: object; examples?: Record<string, { value: unknown }> };
    if (media.schema && media.examples) {
      const validate = ajv.compile(media.schema);
      for (const [name, example] of Object.entries(media.examples)) {
        t.true(validate(example.value), `${where} example ${name}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'schema') visit(value, `${where}/${key}`);
  };
  visit(resolved.paths, '#/paths');
  visit(resolved.webhooks, '#/webhooks');
  // JSON Schema's own `examples` (what the renderer's samples show), wherever a schema has them.
  const visitSchema = (node: unknown, where: string) => {
    if (node === null || typeof node !== 'object') return;
    const schema = node as { type?: unknown; examples?: unknown };
    if (schema.type !== undefined && Array.isArray(schema.examples)) {
      const validate = ajv.compile(schema);
      for (const [i, example] of schema.examples.entries()) {
        t.true(validate(example), `${where} examples[${i}]: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    for (const [key, value] of Object.entries(node)) visitSchema(value, `${where}/${key}`);
  };
  visitSchema(resolved.components.schemas, '#/components/schemas');
  t.true(checked > 20, `only ${checked} examples checked`);
});

test('every catalogue tool is a POST operation with its cost, group, schemas and problem answers', (t) => {
  t.true(CATALOGUE.size > 0);
  for (const tool of CATALOGUE.values()) {
    const op = doc.paths[`/api/v1/tools/${tool.name}`]?.post as Record<string, UncheckedJson> | undefined;
    if (!op) {
      t.fail(`${tool.name} is not documented`);
      continue;
    }
    t.is(op.operationId, tool.name);
    t.deepEqual(op.tags, [tool.group]);
    t.is(op['x-credits'], tool.cost);
    t.regex(op.summary, new RegExp(`${tool.cost} credits?$`));
    t.deepEqual(op.security, [{ apiKey: [] }]);
    t.is(op.parameters[0].$ref, '#/components/parameters/Idempotency-Key');
    const input = op.requestBody.content['application/json'].schema.$ref.split('/').pop();
    // A tool that makes a file answers its output or, with Output-Destination, where the file went (x-stored-output).
    const output = op.responses['200'].content['application/json'].schema.$ref.split('/').pop();
    const stored = op['x-stored-output']?.$ref.split('/').pop();
    t.like(doc.components.schemas[input], { title: `${tool.name} input` });
    t.like(doc.components.schemas[output!], { title: `${tool.name} output` });
    const namesDestination = op.parameters.some((p: { $ref: string }) => p.$ref === '#/components/parameters/Output-Destination');
    t.is(namesDestination, Boolean(tool.fileField), `${tool.name} takes Output-Destination iff it makes a file`);
    const bad = op.responses['502'] as { $ref?: string } | undefined;
    const badGateway = (bad?.$ref ? doc.components.responses[bad.$ref.split('/').pop()!] : bad) as
      | Record<string, UncheckedJson>
      | undefined;
    t.is(
      Boolean(badGateway?.content['application/problem+json'].examples.destination_error),
      Boolean(tool.fileField),
      `${tool.name} answers destination_error iff it makes a file`,
    );
    if (tool.fileField) {
      const schema = doc.components.schemas[stored!] as { required: string[]; properties: Record<string, unknown> };
      t.deepEqual(schema.properties.stored, { $ref: '#/components/schemas/StoredFile' });
      t.true(schema.required.includes('stored'));
      t.false(tool.fileField in schema.properties, `${tool.name}'s stored answer carries no file`);
    } else {
      t.is(stored, undefined);
    }
    // Descriptions are CommonMark: a bare `<salt>` would be dropped as an HTML tag by renderers.
    const prose = JSON.stringify([doc.components.schemas[input], doc.components.schemas[output!]]).replace(/`[^`]*`/g, '');
    t.notRegex(prose, /"description":"[^"]*<[A-Za-z]/, `${tool.name} has markup-free descriptions`);
    for (const status of TOOL_CALL_STATUSES) t.truthy(op.responses[status], `${tool.name} documents ${status}`);
    for (const header of ['X-Request-Id', 'X-Credits-Charged', 'X-Credits-Remaining', 'RateLimit-Remaining', 'Idempotent-Replayed']) {
      t.truthy(op.responses['200'].headers[header], `${tool.name} 200 documents ${header}`);
    }
  }
});

test("the catalogue's docs links point at the tools' operations in the rendered reference", async (t) => {
  const { tools } = (await (await fetch(`${origin}/api/v1/tools`)).json()) as { tools: { name: string; docs: string }[] };
  for (const tool of tools) {
    const op = doc.paths[`/api/v1/tools/${tool.name}`]!.post!;
    // Redoc's anchor of an operation: #tag/<tag name>/operation/<operationId>.
    t.is(tool.docs, `${BASE_URL}/docs#tag/${(op.tags as string[])[0]}/operation/${op.operationId}`);
  }
});

test('with the webhook routes mounted, the document lists them and stays valid', async (t) => {
  const withWebhooks = buildOpenApi({ baseUrl: BASE_URL, schemas: publishedCatalogueSchemas() });
  t.true((await new Validator().validate(structuredClone(withWebhooks) as unknown as Record<string, unknown>)).valid);
  const operations = Object.entries(withWebhooks.paths)
    .filter(([path]) => path.startsWith('/api/v1/account/webhooks'))
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  t.deepEqual(operations.sort(), [
    'DELETE /api/v1/account/webhooks/{id}',
    'DELETE /api/v1/account/webhooks/{id}/previous-secret',
    'GET /api/v1/account/webhooks',
    'GET /api/v1/account/webhooks/{id}/attempts',
    'PATCH /api/v1/account/webhooks/{id}',
    'POST /api/v1/account/webhooks',
    'POST /api/v1/account/webhooks/{id}/enable',
    'POST /api/v1/account/webhooks/{id}/replay',
    'POST /api/v1/account/webhooks/{id}/rotate-secret',
    'POST /api/v1/account/webhooks/{id}/test',
  ]);
});

test('problem answers are application/problem+json with the shared Problem schema and every code', (t) => {
  t.deepEqual(doc.components.schemas.ErrorCode!.enum, Object.keys(ERRORS));
  for (const [name, response] of Object.entries(doc.components.responses) as [string, UncheckedJson][]) {
    const content = response.content['application/problem+json'];
    t.is(content.schema.$ref, '#/components/schemas/Problem', name);
    // A code answered with another status on one route (Stripe's webhook: invalid_signature is 400) is a response named for it.
    const answeredAt = /At(\d{3})$/.exec(name)?.[1];
    for (const [code, example] of Object.entries(content.examples) as [ErrorCode, UncheckedJson][]) {
      t.is(example.value.status, answeredAt ? Number(answeredAt) : ERRORS[code].status);
      t.is(example.value.type, `${BASE_URL}/docs/errors#${code}`);
    }
  }
});

test('every route the app serves is documented, and every documented operation is served', (t) => {
  const routes = servedRoutes();
  const operations = documentedOperations();
  t.true(routes.length > 10);
  for (const layer of routes) {
    // The OAuth authorization server's endpoints: its own metadata describes them (RFC 8414).
    if (AUTHORIZATION_SERVER_PATHS.includes(String(layer.path))) continue;
    const methods = layer.methods.filter((m) => m !== 'HEAD');
    const documented = operations.filter((op) => layer.match(concrete(op.path)));
    if (methods.includes('PUT') && methods.includes('TRACE')) {
      // `router.all(...)`: the 405 answer of a tool path for the methods it does not take.
      t.true(documented.length > 0, `the paths of ${layer.path} are documented`);
      continue;
    }
    for (const method of methods) {
      t.true(
        documented.some((op) => op.method === method),
        `${method} ${layer.path} is documented`,
      );
    }
  }
  for (const op of operations) {
    const served = routes.some(
      (layer) => layer.methods.includes(op.method) && !layer.methods.includes('TRACE') && layer.match(concrete(op.path)),
    );
    t.true(served, `${op.method} ${op.path} is served`);
  }
});

test('webhook events are documented with their envelope, payload and signature headers', (t) => {
  t.deepEqual(Object.keys(doc.webhooks), [...EVENT_KINDS]);
  for (const kind of EVENT_KINDS) {
    const op = doc.webhooks[kind]!.post as Record<string, UncheckedJson>;
    const headers = op.parameters.map((p: { name: string }) => p.name);
    t.deepEqual(headers, [
      'X-Service-Event',
      'X-Service-Event-Id',
      'X-Service-Timestamp',
      'X-Service-Signature',
      'X-Service-Signatures',
      'User-Agent',
    ]);
    const envelope = doc.components.schemas[op.requestBody.content['application/json'].schema.$ref.split('/').pop()] as Record<
      string,
      UncheckedJson
    >;
    t.deepEqual(envelope.required, ['id', 'event', 'createdAt', 'data']);
    t.is(envelope.properties.event.const, kind);
  }
  const verifying = String(doc.info.description).split('## Verifying signatures')[1] ?? '';
  for (const rule of [/`sha256=`/, /HMAC-SHA256/, /<X-Service-Timestamp>\.<raw body>/, /300 seconds or more/, /constant time/])
    t.regex(verifying, rule);
});

test('/docs/errors has a section for every error code, without scripts', async (t) => {
  const res = await fetch(`${origin}/docs/errors`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  for (const [code, { status }] of Object.entries(ERRORS)) {
    const section = new RegExp(
      `<section id="${code}"[\\s\\S]*?HTTP ${status}[\\s\\S]*?When it happens[\\s\\S]*?What to do[\\s\\S]*?</section>`,
    );
    t.regex(html, section, `${code} has a section`);
  }
  t.notRegex(html, /<script/i);
});

test('/docs loads the renderer from this service, which caches it for a year', async (t) => {
  const page = await fetch(`${origin}/docs`);
  t.is(page.status, 200);
  const html = await page.text();
  const src = /<script src="([^"]+)"/.exec(html)?.[1];
  t.regex(src ?? '', /^\/docs\/assets\/redoc\.standalone\.js\?v=\d+\.\d+\.\d+$/);
  t.regex(html, /Redoc\.init\(\s*'\/api\/v1\/openapi\.json'/);
  // The inline init script runs under the page's CSP, which allows it by hash and nothing foreign.
  const inline = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const csp = page.headers.get('content-security-policy') ?? '';
  t.true(csp.includes(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`));
  t.notRegex(csp, /https?:/);

  const script = await fetch(origin + src!);
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /^text\/javascript/);
  t.regex(script.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
  t.true((await script.text()).length > 500_000);
});
