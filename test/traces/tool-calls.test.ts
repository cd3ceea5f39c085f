//! A synchronous call's trace, read back from Jaeger (`npm run test:traces`): a screenshot and a
//! bcrypt-hash call each make one tree from the HTTP request through the workflow start, the
//! workflow and its step to the ledger and the tool (a capture's navigation and capture in Chromium,
//! a conversion's LibreOffice run, an SMTP check's connection inside it), with no key, password or
//! SMTP credential in any attribute or event; a failed call's trace marks the failing spans with the
//! problem's code.
import test from 'ava';
import { callTool, newAccount } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { startBrowserPages } from '../fixtures/browser-pages.js';
import { closedPort, type PageServer } from '../fixtures/http-pages.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { makeDocx } from '../fixtures/documents.js';
import {
  ancestry,
  assertOneTree,
  byName,
  callSpans,
  childrenOf,
  everything,
  hasAll,
  names,
  tag,
  tagsOf,
  traceIdOf,
  traceOf,
} from './support/jaeger.js';

let pages: PageServer;
let files: FileServer;

test.before(async () => {
  [pages, files] = await Promise.all([startBrowserPages(), startFileServer()]);
});
test.after.always(async () => {
  await Promise.all([pages?.close(), files?.close()]);
});

test.serial('a screenshot call and a bcrypt-hash call are one tree each, request to tool, with no key or password anywhere', async (t) => {
  const account = await newAccount(100);
  const password = `correct horse ${Date.now()} battery`;

  const shot = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/browser/colourful') });
  t.is(shot.status, 200);
  const hash = await callTool(account.apiKey, 'bcrypt-hash', { password, workFactor: 4 });
  t.is(hash.status, 200);

  for (const [res, tool] of [
    [shot, 'website-screenshot'],
    [hash, 'bcrypt-hash'],
  ] as const) {
    const inTool = tool === 'website-screenshot' ? ['chromium navigate', 'chromium capture'] : [];
    const trace = await traceOf(traceIdOf(res), hasAll([...callSpans(tool), 'ledger commit', ...inTool]));
    assertOneTree(t, trace);
    for (const name of inTool) t.is(ancestry(trace, name)[1], `tool ${tool}`, `${name} is the tool's`);
    t.deepEqual(
      ancestry(trace, `tool ${tool}`),
      [`tool ${tool}`, ...callSpans(tool).slice(0, 5).reverse()],
      `${tool}: tool < step < workflow < start < request`,
    );
    t.deepEqual(ancestry(trace, 'ledger commit').slice(1), callSpans(tool).slice(0, 5).reverse(), `${tool}: the commit is the step's`);
    t.like(tagsOf(byName(trace, 'POST /api/v1/tools/:tool')), {
      'http.route': '/api/v1/tools/:tool',
      'http.response.status_code': 200,
      'utility_tools.account_id': account.id,
      'utility_tools.tool': tool,
      'utility_tools.request_id': res.headers.get('x-request-id'),
    });
    const services = new Set(trace.spans.map((s) => trace.processes[s.processID]!.serviceName));
    t.deepEqual([...services].sort(), ['utility-tools-api', 'utility-tools-worker'], `${tool}: the API's and the workers' spans`);
    const memo = await withTemporalClient(
      async (client) => (await client.workflow.getHandle(res.headers.get('x-request-id')!).describe()).memo,
    );
    t.is(memo?.traceId, traceIdOf(res), `${tool}: the workflow's memo names its trace`);
    const reserveDb = childrenOf(trace, 'ledger reserve').filter((s) => tag(s, 'db.system') === 'mongodb');
    t.true(reserveDb.length > 0, `${tool}: the reserve's database operations`);
    t.true(
      childrenOf(trace, 'ledger commit').some((s) => tag(s, 'db.system') === 'mongodb'),
      `${tool}: the commit's database operations`,
    );
    for (const op of reserveDb) t.truthy(tag(op, 'db.collection.name'), `${op.operationName} names its collection`);
    const text = everything(trace);
    t.false(text.includes(account.apiKey), `${tool}: no API key`);
    t.false(text.includes(account.ownerToken), `${tool}: no owner token`);
    t.false(text.includes(password), `${tool}: no password`);
  }
});

test.serial("an SMTP check's trace has its upstream connection (host, checked address) and no SMTP credential anywhere", async (t) => {
  const account = await newAccount(100);
  // Port 25 of the fixture address is kept closed (test/tools/smtp-test-sessions.test.ts serves the others):
  // the credentials travel with the call to the worker, and the connection is refused there.
  const [username, password] = ['trace-user', `smtp secret ${Date.now()}`];
  const res = await callTool(account.apiKey, 'smtp-test', { host: '127.0.0.2', port: 25, username, password });
  t.is(res.status, 502);

  const trace = await traceOf(traceIdOf(res), hasAll([...callSpans('smtp-test'), 'ledger refund', 'upstream connection']));
  assertOneTree(t, trace);
  const connection = byName(trace, 'upstream connection')!;
  t.is(ancestry(trace, 'upstream connection')[1], 'tool smtp-test');
  t.is(tag(connection, 'server.address'), '127.0.0.2');
  t.is(tag(connection, 'server.port'), 25);
  t.is(tag(connection, 'network.peer.address'), '127.0.0.2', 'the address the guard checked');
  t.is(tag(connection, 'utility_tools.problem.code'), 'upstream_error');
  const text = everything(trace);
  for (const secret of [password, username, account.apiKey])
    t.false(text.includes(secret), `no ${secret === account.apiKey ? 'API key' : 'SMTP credential'}`);
});

test.serial("a failed call's trace marks the failing navigation and the tool's span with the problem's code", async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.is(res.status, 502);
  t.is(res.body.code, 'upstream_error');
  t.is(res.body.traceId, traceIdOf(res), 'the problem names its trace');

  const trace = await traceOf(res.body.traceId, hasAll([...callSpans('website-screenshot'), 'ledger refund', 'chromium navigate']));
  assertOneTree(t, trace);
  const navigation = byName(trace, 'chromium navigate')!;
  t.is(tag(navigation, 'utility_tools.problem.code'), 'upstream_error', 'the navigation that failed');
  t.is(tag(navigation, 'otel.status_code'), 'ERROR');
  const tool = byName(trace, 'tool website-screenshot')!;
  t.is(tag(tool, 'utility_tools.problem.code'), 'upstream_error');
  t.is(tag(tool, 'otel.status_code'), 'ERROR');
  t.is(tag(byName(trace, 'POST /api/v1/tools/:tool')!, 'utility_tools.problem.code'), 'upstream_error');
  t.false(names(trace).includes('ledger commit'), 'refunded, not charged');
});

test.serial("a conversion's trace has LibreOffice's conversion inside its tool", async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'word-to-pdf', {
    fileUrl: files.put('/traced/letter.docx', await makeDocx(['A traced letter'])),
  });
  t.is(res.status, 200);
  const trace = await traceOf(traceIdOf(res), hasAll([...callSpans('word-to-pdf'), 'ledger commit', 'libreoffice convert']));
  assertOneTree(t, trace);
  t.is(ancestry(trace, 'libreoffice convert')[1], 'tool word-to-pdf');
  t.is(tag(byName(trace, 'libreoffice convert')!, 'utility_tools.document_type'), 'docx');
  const download = childrenOf(trace, 'tool word-to-pdf').find((s) => s.operationName === 'upstream http');
  t.like(
    tagsOf(download),
    { 'http.response.status_code': 200, 'network.peer.address': '127.0.0.2' },
    "the source's download: its status and the checked address",
  );
  t.true(Number(tag(download!, 'http.response.body.size')) > 0, 'and the bytes it read');
});
