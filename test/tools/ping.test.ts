//! ping: ICMP through the system ping and timed TCP handshakes, both against real listeners on
//! 127.0.0.2; statistics, total loss as an answer, refused targets, the output parser; then the
//! same through HTTP against the running stack.
import net from 'node:net';
import { once } from 'node:events';
import test from 'ava';
import { createIcmpPinger, IcmpUnavailableError, parsePingOutput, pingArgs } from '../../activities/network/icmp-ping.js';
import { summarise } from '../../activities/network/ping-stats.js';
import { createPing } from '../../activities/tools/ping.js';
import type { PingAttempt, PingInput } from '../../domain/tools/ping.js';
import { createGuardedSockets } from '../../lib/guarded-sockets.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard } from '../../lib/target-guard.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, against real listeners on 127.0.0.2 (no stack) =====

const schemas = compileToolSchemas('ping');
const ctx = standaloneContext();
let dns: DnsServer;
let listener: net.Server;
let openPort: number;
let closedPort: number;
let netAccess: { guard: ReturnType<typeof createTargetGuard>; sockets: ReturnType<typeof createGuardedSockets> };

async function listen(server: net.Server): Promise<number> {
  server.listen(0, '127.0.0.2');
  await once(server, 'listening');
  return (server.address() as net.AddressInfo).port;
}

test.before(async () => {
  dns = await startDnsServer();
  const guard = createTargetGuard({ allowlist: ['127.0.0.2/32'], resolver: createResolver({ servers: [dns.address] }) });
  netAccess = { guard, sockets: createGuardedSockets({ guard }) };
  listener = net.createServer((socket) => socket.destroy());
  openPort = await listen(listener);
  const closed = net.createServer();
  closedPort = await listen(closed);
  await new Promise((r) => closed.close(r));
});
test.after.always(async () => {
  await dns?.close();
  listener?.close();
});

const input = (t: import('ava').ExecutionContext, fields: Partial<PingInput>) => validInput<PingInput>(t, schemas.input, fields);

test('icmp: echo replies from the checked address, with statistics', async (t) => {
  const icmp = createIcmpPinger();
  t.true(await icmp.available(), 'the system ping must be installed and allowed to send ICMP (bootstrap installs iputils-ping)');
  const ping = createPing({ net: netAccess, method: 'icmp', icmp });
  const out = await ping(input(t, { host: N.fixture, count: 3 }), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  t.like(out, { host: 'fixture.test', resolvedIp: '127.0.0.2', method: 'icmp', sent: 3, received: 3, packetLossPercent: 0 });
  t.is(out.port, undefined);
  t.deepEqual(
    out.attempts.map((a) => [a.sequence, a.success, a.status]),
    [
      [1, true, 'reply'],
      [2, true, 'reply'],
      [3, true, 'reply'],
    ],
  );
  t.true(out.minMs! <= out.avgMs! && out.avgMs! <= out.maxMs!);
  t.true(out.jitter! >= 0);
});

test('icmp: a full URL is accepted and its host probed', async (t) => {
  const ping = createPing({ net: netAccess, method: 'icmp' });
  const out = await ping(input(t, { host: `https://${N.fixture}:8443/some/page?q=1`, count: 1 }), ctx);
  t.like(out, { host: 'fixture.test', resolvedIp: '127.0.0.2', received: 1 });
});

test('tcp: timed handshakes to the port, with statistics', async (t) => {
  const ping = createPing({ net: netAccess, method: 'tcp' });
  const out = await ping(input(t, { host: '127.0.0.2', port: openPort, count: 4, timeoutMs: 1000 }), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  t.like(out, { resolvedIp: '127.0.0.2', method: 'tcp', port: openPort, sent: 4, received: 4, packetLossPercent: 0 });
  t.true(out.attempts.every((a) => a.success && a.status === 'open' && a.latencyMs! >= 0));
  t.deepEqual(
    out.attempts.map((a) => a.sequence),
    [1, 2, 3, 4],
  );
});

test('tcp: a closed port is 100% loss, answered as a result with null round trips', async (t) => {
  const ping = createPing({ net: netAccess, method: 'tcp' });
  const out = await ping(input(t, { host: N.fixture, port: closedPort, count: 2, timeoutMs: 500 }), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  t.like(out, { sent: 2, received: 0, packetLossPercent: 100, minMs: null, avgMs: null, maxMs: null, jitter: null });
  t.deepEqual(out.attempts, [
    { sequence: 1, success: false, latencyMs: null, status: 'refused' },
    { sequence: 2, success: false, latencyMs: null, status: 'refused' },
  ]);
});

test('auto: ICMP where the system ping may send it, else TCP', async (t) => {
  const auto = await createPing({ net: netAccess, method: 'auto' })(input(t, { host: N.fixture, port: openPort, count: 1 }), ctx);
  t.is(auto.method, 'icmp');
  const noPing = createIcmpPinger({ binary: '/nonexistent/ping' });
  t.false(await noPing.available());
  const fallback = await createPing({ net: netAccess, method: 'auto', icmp: noPing })(
    input(t, { host: N.fixture, port: openPort, count: 1 }),
    ctx,
  );
  t.like(fallback, { method: 'tcp', port: openPort, received: 1 });
});

test('icmp forced without a usable ping is an internal error, not a silent switch', async (t) => {
  const ping = createPing({ net: netAccess, method: 'icmp', icmp: createIcmpPinger({ binary: '/nonexistent/ping' }) });
  await t.throwsAsync(ping(input(t, { host: N.fixture, count: 1 }), ctx), { instanceOf: IcmpUnavailableError });
});

for (const [host, reason] of [
  ['10.0.0.1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['http://127.0.0.1:8080/', 'loopback'],
  ['169.254.169.254', 'metadata'],
  ['[::1]', 'loopback'],
  [N.private10, 'private'],
  [N.loopback, 'loopback'],
  ['localhost', 'loopback'],
] as const) {
  test(`a non-public target is refused before any probe: ${host}`, async (t) => {
    for (const method of ['icmp', 'tcp'] as const) {
      const err = await rejectsWith(t, createPing({ net: netAccess, method })(input(t, { host, count: 1 }), ctx), 'target_not_allowed');
      t.is(err.extras.reason, reason);
    }
  });
}

test('a name that cannot be resolved is 502 upstream_error', async (t) => {
  const err = await rejectsWith(
    t,
    createPing({ net: netAccess, method: 'tcp' })(input(t, { host: N.servfail, count: 1 }), ctx),
    'upstream_error',
  );
  t.is(err.extras.reason, 'dns_servfail');
  await rejectsWith(t, createPing({ net: netAccess, method: 'tcp' })(input(t, { host: N.nxdomain, count: 1 }), ctx), 'upstream_error');
});

test('an unparsable URL is 400 on /host', async (t) => {
  await rejectsWith(
    t,
    createPing({ net: netAccess, method: 'tcp' })(input(t, { host: 'http://', count: 1 }), ctx),
    'validation_failed',
    '/host',
  );
});

test('ping is run with an argument array: the checked address, never a name or a shell', (t) => {
  t.deepEqual(pingArgs({ address: '93.184.215.14', family: 4, count: 3, timeoutMs: 1500, intervalMs: 200 }), [
    '-n',
    '-c',
    '3',
    '-i',
    '0.200',
    '-W',
    '1.500',
    '-4',
    '93.184.215.14',
  ]);
  t.is(pingArgs({ address: '2606:4700::1111', family: 6, count: 1, timeoutMs: 100, intervalMs: 200 }).at(-2), '-6');
});

test('the ping output parser: replies, duplicates, late replies, errors and silence', (t) => {
  const output = [
    'PING 93.184.215.14 (93.184.215.14) 56(84) bytes of data.',
    '64 bytes from 93.184.215.14: icmp_seq=1 ttl=56 time=11.4 ms',
    '64 bytes from 93.184.215.14: icmp_seq=1 ttl=56 time=13.0 ms (DUP!)',
    'From 10.1.1.1 icmp_seq=2 Destination Host Unreachable',
    '64 bytes from 93.184.215.14: icmp_seq=4 ttl=56 time=2500 ms',
    '64 bytes from 93.184.215.14: icmp_seq=5 ttl=56 time=12.25 ms',
    '',
    '--- 93.184.215.14 ping statistics ---',
    '5 packets transmitted, 3 received, +1 duplicates, +1 errors, 40% packet loss, time 805ms',
  ].join('\n');
  t.deepEqual(parsePingOutput(output, 5, 2000), [
    { sequence: 1, success: true, latencyMs: 11.4, status: 'reply' },
    { sequence: 2, success: false, latencyMs: null, status: 'unreachable' },
    { sequence: 3, success: false, latencyMs: null, status: 'timeout' },
    { sequence: 4, success: false, latencyMs: null, status: 'timeout' },
    { sequence: 5, success: true, latencyMs: 12.25, status: 'reply' },
  ]);
  t.deepEqual(parsePingOutput('64 bytes from ::1: icmp_seq=1 ttl=64 time=0.041 ms', 1, 100)[0], {
    sequence: 1,
    success: true,
    latencyMs: 0.041,
    status: 'reply',
  });
});

test('statistics: min, mean, max, jitter as mean change between consecutive replies, loss to two decimals', (t) => {
  const reply = (sequence: number, latencyMs: number): PingAttempt => ({ sequence, success: true, latencyMs, status: 'reply' });
  const lost = (sequence: number): PingAttempt => ({ sequence, success: false, latencyMs: null, status: 'timeout' });
  t.deepEqual(summarise([reply(1, 10), reply(2, 14), lost(3), reply(4, 12)]), {
    sent: 4,
    received: 3,
    packetLossPercent: 25,
    minMs: 10,
    avgMs: 12,
    maxMs: 14,
    jitter: 3,
  });
  t.is(summarise([reply(1, 5), lost(2), lost(3)]).packetLossPercent, 66.67);
  t.like(summarise([reply(1, 5)]), { jitter: 0, minMs: 5, maxMs: 5 });
  t.like(summarise([lost(1)]), { received: 0, packetLossPercent: 100, minMs: null, jitter: null });
  // Order is by sequence, whatever order the probes finished in.
  t.is(summarise([reply(2, 20), reply(1, 10), reply(3, 10)]).jitter, 10);
});

test('input schema: bounds and defaults of count, port and timeoutMs; example valid', (t) => {
  const defaults = input(t, { host: 'example.com' });
  t.like(defaults, { count: 4, port: 443, timeoutMs: 2000 });
  for (const bad of [
    { count: 0 },
    { count: 11 },
    { timeoutMs: 99 },
    { timeoutMs: 10_001 },
    { port: 0 },
    { port: 65_536 },
    { count: 2.5 },
  ]) {
    t.false(schemas.input({ host: 'example.com', ...bad }), JSON.stringify(bad));
  }
  t.false(schemas.input({}));
  t.false(schemas.input({ host: 'example.com', ttl: 3 }));
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output(structuredClone((schemas.output.schema as { examples: unknown[] }).examples[0])));
});

// ===== Integration: through HTTP against the running stack (npm test) =====

test('HTTP: a fixture host answers 200 with statistics and costs 2 credits', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'ping', { host: N.fixture, port: openPort, count: 3, timeoutMs: 1000 });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body), JSON.stringify(schemas.output.errors));
  t.like(res.body, { resolvedIp: '127.0.0.2', sent: 3, received: 3, packetLossPercent: 0 });
  t.true(['icmp', 'tcp'].includes(res.body.method));
  t.is(res.headers.get('x-credits-charged'), '2');
  t.is(await balanceOf(account), 8);
});

test('HTTP: private and loopback targets are 422 target_not_allowed and not charged', async (t) => {
  const account = await newAccount(10);
  for (const host of ['10.0.0.1', '127.0.0.1', 'http://localhost:8080/', N.private10, N.metadata]) {
    const res = await callTool(account.apiKey, 'ping', { host, count: 1 });
    t.true(isProblem(res, 422, 'target_not_allowed'), `${host}: ${JSON.stringify(res.body)}`);
    t.truthy(res.body.reason);
  }
  t.is(await balanceOf(account), 10);
});

test('HTTP: a name that cannot be resolved is 502 and refunded', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'ping', { host: N.servfail, count: 1 });
  t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
  t.is(await balanceOf(account), 10);
});

test('HTTP: out-of-range count and timeout are 400 naming each field', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'ping', { host: N.fixture, count: 11, timeoutMs: 50 });
  t.true(isProblem(res, 400, 'validation_failed'));
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), ['/count', '/timeoutMs']);
  t.is(await balanceOf(account), 10);
});
