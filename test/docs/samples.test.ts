//! The code samples of the README, docs/*.md and the served reference (`/docs`, from the OpenAPI
//! document's overview) run against the stack as a reader would run them: curl in bash, the Node
//! webhook receiver, the signature checks in Node and Python, the client in TypeScript. A sample
//! no test runs fails the first test, unless a `<!-- sample: not run (why) -->` line says why.
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { UtilityTools } from 'utility-tools/client';
import { signWebhook } from '../../lib/webhook-signature.js';
import { adminToken, apiUrl, newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { RUNNABLE, samplesOf, type Sample } from './markdown.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
/** Inside the repository, so `utility-tools/...` resolves to this package (self-reference). */
const workDir = (name: string) => {
  const dir = path.join(testEnv.outputDir(), 'samples', name);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const NODE_FLAGS = ['--conditions=utility-tools-source', '--import=tsx'];
const HELLO_SHA256 = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';

let served: string;
test.before(async () => {
  served = (await request('GET', '/api/v1/openapi.json')).body.info.description;
});

/** The runnable samples of each source, in order; each test below takes its own by position. */
function runnable(markdown: string): Sample[] {
  return samplesOf(markdown).filter((s) => RUNNABLE.has(s.lang) && !s.notRun);
}

/**
 * How many runnable samples each source with any has, and so how many the tests below run
 * (docs/other-languages.md's two: test/docs/python-client.test.ts).
 */
const RUN_HERE: Record<string, number> = {
  'README.md': 2,
  'docs/WEBHOOKS.md': 1,
  'docs/client.md': 1,
  'docs/other-languages.md': 2,
  '/docs': 3,
};

test('every runnable sample is run by a test', (t) => {
  const pages = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const counts: Record<string, number> = {};
  for (const page of pages) {
    const n = runnable(read(page)).length;
    if (n > 0) counts[page] = n;
  }
  counts['/docs'] = runnable(served).length;
  t.deepEqual(counts, RUN_HERE);
});

/** The lines a shell sample promises as comments (`# {"algorithm":"sha256","hash":"2cf24dba..."}`), up to their `...`. */
function promisedOutputs(code: string): string[] {
  return [...code.matchAll(/^# (\{.*)$/gm)].map((m) => m[1]!.split('...')[0]!);
}

async function bash(t: ExecutionContext, code: string, cwd: string, env: Record<string, string>) {
  const result = await run('bash', ['-euo', 'pipefail', '-c', code], { cwd, env: { ...process.env, ...env } }).catch((err) => err);
  t.falsy(result.code, `${result.stdout ?? ''}\n${result.stderr ?? ''}`);
  return result.stdout as string;
}

test('README: the curl walk-through opens an account and calls a tool', async (t) => {
  const sample = runnable(read('README.md')).find((s) => s.lang === 'sh')!;
  const cwd = workDir('readme-curl');
  mkdirSync(path.join(cwd, '.data'), { recursive: true });
  writeFileSync(path.join(cwd, '.data', 'admin-token'), adminToken());
  const account = await newAccount(10);
  const code = sample.code.replaceAll('localhost:8080', new URL(apiUrl()).host);
  const stdout = await bash(t, code, cwd, { KEY: account.apiKey });
  t.regex(stdout, /"ownerToken":"uto_/);
  const promised = promisedOutputs(sample.code);
  t.true(promised.length > 0);
  for (const line of promised) t.true(stdout.includes(line), `${line} in ${stdout}`);
});

test('/docs: the getting-started curl calls hash-text', async (t) => {
  const sample = runnable(served).find((s) => s.lang === 'sh')!;
  const account = await newAccount(10);
  const stdout = await bash(t, sample.code, workDir('docs-curl'), { API_KEY: account.apiKey });
  t.like(JSON.parse(stdout), { algorithm: 'sha256', hash: HELLO_SHA256 });
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('docs/WEBHOOKS.md: the Node receiver verifies a delivery from the service and refuses a forged one', async (t) => {
  const sample = runnable(read('docs/WEBHOOKS.md')).find((s) => s.lang === 'js')!;
  const dir = workDir('readme-receiver');
  writeFileSync(path.join(dir, 'receiver.mjs'), sample.code);
  const account = await newAccount(10);
  const client = new UtilityTools({ baseUrl: apiUrl(), ownerToken: account.ownerToken });
  const port = await freePort();
  const endpoint = await client.account.webhooks.create({ url: `http://localhost:${port}/hooks` });
  const receiver = spawn(process.execPath, [...NODE_FLAGS, 'receiver.mjs'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: endpoint.secret },
  });
  t.teardown(() => receiver.kill());
  let output = '';
  receiver.stdout.on('data', (chunk) => (output += chunk));
  receiver.stderr.on('data', (chunk) => (output += chunk));
  // Listening: a forged delivery is refused.
  let forged: Response | undefined;
  for (let i = 0; i < 100 && !forged; i++) {
    forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      body: '{}',
      headers: { 'x-service-timestamp': String(Math.floor(Date.now() / 1000)), 'x-service-signature': 'sha256=00' },
    }).catch(() => undefined);
    if (!forged) await new Promise((r) => setTimeout(r, 100));
  }
  t.is(forged?.status, 401, output);
  const { eventId } = await client.account.webhooks.test(endpoint.id);
  for (let i = 0; i < 300 && !output.includes('webhook.test'); i++) await new Promise((r) => setTimeout(r, 100));
  t.regex(output, /webhook\.test/);
  // The attempt is recorded once the receiver's answer is back at the worker, after the receiver
  // printed the event: read until it is there.
  const attempts = await eventually(
    () => client.account.webhooks.attempts(endpoint.id),
    (list) => list.some((a) => a.eventId === eventId),
    30_000,
    `the attempt of ${eventId}`,
  );
  t.like(
    attempts.find((a) => a.eventId === eventId),
    { statusCode: 204, success: true },
  );
});

/** A signed delivery as the service sends it, and a tampered copy. */
function delivery(secret: string) {
  const body = JSON.stringify({
    id: 'evt_sample',
    event: 'webhook.test',
    createdAt: new Date().toISOString(),
    data: { endpointId: 'whe_x', message: 'hi' },
  });
  const { timestamp, signature } = signWebhook(secret, body);
  return { body, tampered: body.replace('hi', 'ho'), timestamp, signature };
}

test('/docs: the signature check in Node accepts a delivery and refuses a tampered one', async (t) => {
  const sample = runnable(served).find((s) => s.lang === 'js')!;
  const dir = workDir('docs-verify-node');
  writeFileSync(path.join(dir, 'verify.mjs'), sample.code);
  const { verifyDelivery } = await import(path.join(dir, 'verify.mjs'));
  const secret = 'whsec_sample';
  const d = delivery(secret);
  const headers = { 'x-service-timestamp': d.timestamp, 'x-service-signature': d.signature };
  t.true(verifyDelivery(secret, headers, Buffer.from(d.body)));
  t.false(verifyDelivery(secret, headers, Buffer.from(d.tampered)));
  t.false(verifyDelivery('whsec_other', headers, Buffer.from(d.body)));
});

test('/docs: the signature check in Python accepts a delivery and refuses a tampered one', async (t) => {
  const sample = runnable(served).find((s) => s.lang === 'python')!;
  const dir = workDir('docs-verify-python');
  const d = delivery('whsec_sample');
  writeFileSync(
    path.join(dir, 'verify.py'),
    `${sample.code}\nimport json, sys\nd = json.loads(sys.argv[1])\nh = {"X-Service-Timestamp": d["timestamp"], "X-Service-Signature": d["signature"]}\n` +
      `print(verify_delivery("whsec_sample", h, d["body"].encode()), verify_delivery("whsec_sample", h, d["tampered"].encode()))\n`,
  );
  const { stdout } = await run('python3', ['verify.py', JSON.stringify(d)], { cwd: dir });
  t.is(stdout.trim(), 'True False');
});

async function runTs(code: string, name: string, env: Record<string, string>) {
  const dir = workDir(name);
  writeFileSync(path.join(dir, 'sample.ts'), code);
  const { stdout } = await run(process.execPath, [...NODE_FLAGS, 'sample.ts'], { cwd: dir, env: { ...process.env, ...env } });
  return stdout.trim().split('\n');
}

test('README: the client sample calls a tool, waits for an asynchronous one, reads a 402 and runs a batch', async (t) => {
  const sample = runnable(read('README.md')).find((s) => s.lang === 'ts')!;
  const account = await newAccount(3);
  const lines = await runTs(sample.code, 'readme-client', { UTILITY_TOOLS_URL: apiUrl(), UTILITY_TOOLS_KEY: account.apiKey });
  t.is(lines[0], `${HELLO_SHA256} cost 1, 2 left`);
  t.regex(lines[1]!, /^QR code of \d+ bytes$/);
  t.is(lines[2], 'a screenshot costs 25; the balance is 1');
  t.deepEqual(lines.slice(3), ['item 0 succeeded', 'batch completed: 1 succeeded']);
});

test('docs/client.md: the client sample', async (t) => {
  const sample = runnable(read('docs/client.md')).find((s) => s.lang === 'ts')!;
  const account = await newAccount(3);
  const lines = await runTs(sample.code, 'docs-client', { UTILITY_TOOLS_URL: apiUrl(), UTILITY_TOOLS_KEY: account.apiKey });
  t.deepEqual(lines, [
    'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9 1 2 true',
    'image/png true',
    '402 insufficient_credits 1 25',
  ]);
});
