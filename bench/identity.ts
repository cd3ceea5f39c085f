//! `npm run bench:identity`: what people's sign-in costs and what it costs the calls beside it.
//! (1) A dashboard request (GET /api/v1/account) with the session cookie against the same request
//! with the owner token, taking turns, at c=1 and c=16. (2) Password sign-in p50, and the CPU of
//! one Argon2id verification at the service's parameters. (3) hash-text calls at c=1 alone, and
//! beside 10 password sign-ins a second (from several client addresses, as people sign in), taking
//! turns. (4) The role check: GET /api/v1/account through the real authenticator with
//! the check and without it (authentication alone, as the account routes were before), same
//! handler, same database, by owner token and by session cookie, taking turns, at c=1 and c=16, in
//! this process against the bench stack's database. `BENCH_PARTS=1,4` runs only those parts.
//! Prints numbers and ratios; asserts nothing.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { type Db, MongoClient } from 'mongodb';
import { createAuthenticator } from '../api/auth.js';
import { cookieSettings } from '../api/session-cookie.js';
import { createSessions, ARGON2_PARAMETERS, hashPassword, createUsers } from '../domain/identity/index.js';
import argon2 from 'argon2';
import { figures, measureInterleaved, printTable, type Figures } from './measure.js';
import { openBenchAccount, withBenchStack } from './stack.js';
import { createMemberships } from '../domain/membership/index.js';
import { createAccounts } from '../domain/accounts/index.js';
import { derivedId, newId } from '../lib/ids.js';
import { ensureIndexes } from '../lib/mongo.js';
import { SERVICE_ACTOR } from '../domain/audit/index.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 60);
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3,4').split(',').map((p) => p.trim()));

/**
 * GET /api/v1/account served in this process with the real authenticator, with the role check
 * (`require('owner_token')`, what every account route runs) or without it (authentication alone).
 */
async function accountServer(db: Db, publicBaseUrl: string, withRoleCheck: boolean): Promise<{ url: string; close: () => void }> {
  const auth = createAuthenticator(db, {
    sessions: createSessions(db, { idleMs: 12 * 3_600_000, maxMs: 7 * 86_400_000 }),
    cookie: cookieSettings(publicBaseUrl),
  });
  const accounts = createAccounts(db);
  const authenticateOnly: Middleware = async (ctx, next) => {
    const header = ctx.get('Authorization') || undefined;
    ctx.state.principal = (!header ? await auth.sessionOf(ctx) : undefined) ?? (await auth.authenticate(header, 'owner_token', 0, ctx.ip));
    await next();
  };
  const router = new Router();
  router.get('/api/v1/account', withRoleCheck ? auth.require('owner_token') : authenticateOnly, async (ctx) => {
    const a = await accounts.get(ctx.state.principal.accountId);
    ctx.body = { id: a!._id, name: a!.name, balance: a!.balance, createdAt: a!.createdAt };
  });
  const app = new Koa();
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/account`, close: () => server.close() };
}
const SIGNINS_PER_SECOND = 10;
const PASSWORD = 'bench passphrase that nobody guesses';

/** A request from a given loopback address (the per-client sign-in limits count by address). */
function send(
  url: string,
  method: string,
  options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; setCookie: string[] }> {
  const u = new URL(url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method,
        localAddress: options.from,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: res.headers['set-cookie'] ?? [] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ok = async (p: Promise<{ status: number }>, expected = 200) => {
  const { status } = await p;
  if (status !== expected) throw new Error(`answered ${status}`);
};

/** CPU milliseconds of one Argon2id verification at the service's parameters, in this process. */
async function verificationCpuMs(samples = 20): Promise<{ cpuMs: number; wallMs: number }> {
  const hash = await argon2.hash(PASSWORD, ARGON2_PARAMETERS);
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (let i = 0; i < samples; i++) await argon2.verify(hash, PASSWORD);
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / samples, wallMs: (performance.now() - t) / samples };
}

await withBenchStack(async (stack) => {
  // The person: made as a verified sign-up makes them (the bench stack mails nowhere).
  const mongo = await MongoClient.connect(stack.mongodbUrl!);
  const db = mongo.db(new URL(stack.mongodbUrl!).pathname.slice(1));
  await ensureIndexes(db);
  const email = `bench-${Date.now()}@bench.test`;
  const accountId = newId('acc');
  const userId = derivedId('usr', accountId);
  await createAccounts(db).openOnce({ id: accountId, name: 'bench', email, credits: 1_000_000 });
  const users = createUsers(db);
  await users.create({
    _id: userId,
    email,
    name: 'Bench',
    passwordHash: await hashPassword(PASSWORD),
    createdAt: new Date(),
    passwordChangedAt: null,
    lastSignInAt: null,
  });
  await createMemberships(db).join(accountId, { _id: userId, email, name: 'Bench' }, 'owner', SERVICE_ACTOR);
  await mongo.close();

  const origin = new URL(stack.apiUrl).origin;
  const signIn = async (from: string) => {
    const res = await send(`${stack.apiUrl}/api/v1/auth/signin`, 'POST', {
      from,
      headers: { origin },
      body: { email, password: PASSWORD },
    });
    if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
    return res.setCookie[0]!.split(';')[0]!;
  };
  const cookie = await signIn('127.0.0.1');
  const { ownerToken } = await openBenchAccount(stack.apiUrl, stack.adminToken, 0, 'bench-token');
  const account = `${stack.apiUrl}/api/v1/account`;

  // (4) The role check, taking turns with authentication alone.
  if (PARTS.has('4')) {
    const roleMongo = await MongoClient.connect(stack.mongodbUrl!);
    const roleDb = roleMongo.db(new URL(stack.mongodbUrl!).pathname.slice(1));
    const [checked, unchecked] = await Promise.all([accountServer(roleDb, stack.apiUrl, true), accountServer(roleDb, stack.apiUrl, false)]);
    const rows: Figures[] = [];
    for (const concurrency of [1, 16]) {
      rows.push(
        ...(await measureInterleaved(
          [
            {
              label: 'token, authentication only',
              concurrency,
              op: () => ok(send(unchecked.url, 'GET', { headers: { authorization: `Bearer ${ownerToken}` } })),
            },
            {
              label: 'token, with role check',
              concurrency,
              op: () => ok(send(checked.url, 'GET', { headers: { authorization: `Bearer ${ownerToken}` } })),
            },
            { label: 'cookie, authentication only', concurrency, op: () => ok(send(unchecked.url, 'GET', { headers: { cookie } })) },
            { label: 'cookie, with role check', concurrency, op: () => ok(send(checked.url, 'GET', { headers: { cookie } })) },
          ],
          { turns: TURNS, callsPerLane: 5, warmupTurns: 5 },
        )),
      );
    }
    printTable('GET /api/v1/account in this process: the role check against authentication alone', rows);
    for (const c of [1, 16]) {
      const [tokenOnly, tokenChecked, cookieOnly, cookieChecked] = rows.filter((r) => r.concurrency === c);
      console.log(
        `role check / without at c=${c}: token p50 ${(tokenChecked!.p50Ms / tokenOnly!.p50Ms).toFixed(3)}x (${tokenChecked!.p50Ms.toFixed(2)} vs ${tokenOnly!.p50Ms.toFixed(2)} ms), ` +
          `cookie p50 ${(cookieChecked!.p50Ms / cookieOnly!.p50Ms).toFixed(3)}x (${cookieChecked!.p50Ms.toFixed(2)} vs ${cookieOnly!.p50Ms.toFixed(2)} ms); cookie with check / today's token path ${(cookieChecked!.p50Ms / tokenOnly!.p50Ms).toFixed(3)}x`,
      );
    }
    checked.close();
    unchecked.close();
    await roleMongo.close();
  }

  // (1) The dashboard's request, by cookie and by token, taking turns.
  const auth: Figures[] = [];
  for (const concurrency of PARTS.has('1') ? [1, 16] : []) {
    auth.push(
      ...(await measureInterleaved(
        [
          { label: 'owner token', concurrency, op: () => ok(send(account, 'GET', { headers: { authorization: `Bearer ${ownerToken}` } })) },
          { label: 'session cookie', concurrency, op: () => ok(send(account, 'GET', { headers: { cookie } })) },
        ],
        { turns: TURNS, callsPerLane: 5, warmupTurns: 5 },
      )),
    );
  }
  if (PARTS.has('1')) printTable('GET /api/v1/account: the session cookie against the owner token', auth);
  for (const c of PARTS.has('1') ? [1, 16] : []) {
    const [token, session] = auth.filter((r) => r.concurrency === c);
    console.log(
      `cookie / token at c=${c}: p50 ${(session!.p50Ms / token!.p50Ms).toFixed(2)}x (${session!.p50Ms.toFixed(1)} vs ${token!.p50Ms.toFixed(1)} ms)`,
    );
  }

  // (2) Sign-in and one verification.
  if (!PARTS.has('2') && !PARTS.has('3')) return;
  const addresses = Array.from({ length: 8 }, (_, i) => `127.0.3.${i + 1}`);
  const [signins] = await measureInterleaved(
    [{ label: 'password sign-in', op: (i) => signIn(addresses[Math.abs(i) % addresses.length]!) }],
    { turns: 40, warmupTurns: 3 },
  );
  printTable('Password sign-in (Argon2id verify, session written)', [signins!]);
  const cost = await verificationCpuMs();
  console.log(
    `one Argon2id verification (m=${ARGON2_PARAMETERS.memoryCost} KiB, t=${ARGON2_PARAMETERS.timeCost}, p=${ARGON2_PARAMETERS.parallelism}): ${cost.cpuMs.toFixed(1)} ms CPU, ${cost.wallMs.toFixed(1)} ms wall`,
  );

  // (3) Calls alone and beside 10 sign-ins a second, taking turns: the sign-ins run through the
  // second half of each turn only.
  const key = await stack.newApiKey(1_000_000);
  const call = () =>
    ok(send(`${stack.apiUrl}/api/v1/tools/hash-text`, 'POST', { headers: { authorization: `Bearer ${key}` }, body: { text: 'bench' } }));
  let failures = 0;
  let n = 0;
  const alone: number[] = [];
  const besideSignins: number[] = [];
  let callErrors = 0;
  const timed = async (into: number[], calls: number) => {
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      try {
        await call();
        into.push(performance.now() - t);
      } catch (err) {
        if (callErrors++ === 0) console.error(`  hash-text: first error: ${(err as Error).message}`);
      }
    }
  };
  for (let i = 0; i < 10; i++) await call();
  for (let turn = 0; turn < TURNS; turn++) {
    await timed(alone, 10);
    const background = setInterval(
      () => void signIn(addresses[n++ % addresses.length]!).catch(() => failures++),
      1000 / SIGNINS_PER_SECOND,
    );
    await new Promise((r) => setTimeout(r, 250));
    await timed(besideSignins, 10);
    clearInterval(background);
    await new Promise((r) => setTimeout(r, 250));
  }
  const rows = [
    figures('hash-text alone', 1, alone.length, 0, alone, 1),
    figures(`hash-text beside ${SIGNINS_PER_SECOND} sign-ins/s`, 1, besideSignins.length, 0, besideSignins, 1),
  ];
  printTable(`hash-text at c=1, alone and beside ${SIGNINS_PER_SECOND} password sign-ins a second (calls/s not meaningful here)`, rows);
  console.log(
    `calls beside sign-ins / alone: p50 ${(rows[1]!.p50Ms / rows[0]!.p50Ms).toFixed(2)}x (${rows[1]!.p50Ms.toFixed(1)} vs ${rows[0]!.p50Ms.toFixed(1)} ms); sign-ins started ${n}, failed ${failures}; calls that failed ${callErrors}`,
  );
});
