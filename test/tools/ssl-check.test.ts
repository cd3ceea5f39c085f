//! ssl-check: real TLS servers on 127.0.0.2 with certificates from a test CA (valid, expired,
//! self-signed, for another name); certificate fields, chain and name verdicts, refused targets,
//! unreachable and non-TLS servers; then the same through HTTP against the running stack.
import { X509Certificate } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { once } from 'node:events';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import test from 'ava';
import { daysUntil, parseSubjectAltNames } from '../../activities/network/certificate-summary.js';
import { createSslCheck } from '../../activities/tools/ssl-check.js';
import type { SslCheckInput } from '../../domain/tools/ssl-check.js';
import { createGuardedSockets } from '../../lib/guarded-sockets.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard } from '../../lib/target-guard.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';
import { caFromEnv, createCa, issueLeaf, selfSigned, type CertificateAuthority, type KeyPair } from '../fixtures/tls-certs.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, against real TLS servers (no stack) =====

const DAY = 86_400_000;
const schemas = compileToolSchemas('ssl-check');
const ctx = standaloneContext();
let dns: DnsServer;
let ca: CertificateAuthority;
let check: ReturnType<typeof createSslCheck>;
const servers: net.Server[] = [];
const ports = { valid: 0, expired: 0, selfSigned: 0, otherName: 0, plain: 0, closed: 0 };

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  server.listen(0, '127.0.0.2');
  await once(server, 'listening');
  return (server.address() as net.AddressInfo).port;
}

const tlsServer = (pair: KeyPair) => tls.createServer({ ...pair }, (socket) => socket.end()).on('tlsClientError', () => {});

test.before(async () => {
  // With the stack, the run's CA (the app trusts it); alone, a CA of this process.
  ca = process.env.TEST_CA_CERT ? await caFromEnv() : await createCa(await mkdtemp(path.join(os.tmpdir(), 'ssl-check-ca-')));
  const now = Date.now();
  const [valid, expired, self, other] = await Promise.all([
    issueLeaf(ca, { names: [N.fixture] }),
    issueLeaf(ca, { names: [N.fixture], notBefore: new Date(now - 60 * DAY), notAfter: new Date(now - 2.5 * DAY) }),
    selfSigned([N.fixture]),
    issueLeaf(ca, { names: ['other.test', '*.other.test'] }),
  ]);
  ports.valid = await listen(tlsServer(valid));
  ports.expired = await listen(tlsServer(expired));
  ports.selfSigned = await listen(tlsServer(self));
  ports.otherName = await listen(tlsServer(other));
  ports.plain = await listen(net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
  const closed = net.createServer();
  ports.closed = await listen(closed);
  closed.close();

  dns = await startDnsServer();
  const guard = createTargetGuard({ allowlist: ['127.0.0.2/32'], resolver: createResolver({ servers: [dns.address] }) });
  // The service's own timeouts: no verdict here is about them, so none may race a busy machine.
  check = createSslCheck({ net: { sockets: createGuardedSockets({ guard, ca: ca.cert }) } });
});
test.after.always(async () => {
  for (const s of servers) s.close();
  await dns?.close();
});

async function run(t: import('ava').ExecutionContext, fields: Partial<SslCheckInput>) {
  const out = await check(validInput<SslCheckInput>(t, schemas.input, fields), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

test('a valid certificate: readable subject and issuer, ISO dates, days left, SANs, a valid chain', async (t) => {
  const out = await run(t, { host: N.fixture, port: ports.valid });
  t.like(out, {
    host: 'fixture.test',
    port: ports.valid,
    subject: 'CN=fixture.test',
    chainValid: true,
    hostnameMatches: true,
    protocol: 'TLSv1.3',
  });
  t.is(out.issuer, new X509Certificate(ca.cert).subject.split('\n').join(', '));
  t.deepEqual(out.subjectAlternativeNames, ['fixture.test']);
  t.is(out.daysRemaining, 29);
  t.regex(out.validFrom, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  t.true(Date.parse(out.validTo) > Date.now() + 29 * DAY);
  t.is(out.chainError, undefined);
  t.regex(out.fingerprintSha256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
});

test('an expired certificate is an answer: negative days, chain invalid with the reason', async (t) => {
  const out = await run(t, { host: N.fixture, port: ports.expired });
  t.like(out, { chainValid: false, chainError: 'CERT_HAS_EXPIRED', hostnameMatches: true, daysRemaining: -3 });
  t.true(Date.parse(out.validTo) < Date.now());
});

test('a self-signed certificate is an answer: chain invalid, name fine', async (t) => {
  const out = await run(t, { host: N.fixture, port: ports.selfSigned });
  t.like(out, {
    chainValid: false,
    chainError: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    hostnameMatches: true,
    subject: 'CN=fixture.test',
    issuer: 'CN=fixture.test',
  });
});

test('a certificate for another name: the chain is valid, the name does not match', async (t) => {
  const out = await run(t, { host: N.fixture, port: ports.otherName });
  t.like(out, { chainValid: true, hostnameMatches: false });
  t.deepEqual(out.subjectAlternativeNames, ['other.test', '*.other.test']);
});

test('SNI: the name is sent, so a name-based server can pick its certificate', async (t) => {
  const seen: string[] = [];
  const pair = await issueLeaf(ca, { names: [N.fixtureUnnamed] });
  const server = tls.createServer({ ...pair, SNICallback: (name, cb) => (seen.push(name), cb(null, tls.createSecureContext(pair))) }, (s) =>
    s.end(),
  );
  const port = await listen(server);
  const out = await run(t, { host: N.fixtureUnnamed, port });
  t.deepEqual(seen, ['unnamed.test']);
  t.like(out, { chainValid: true, hostnameMatches: true });
});

test("an IP address is checked against the certificate's IP names", async (t) => {
  const out = await run(t, { host: '127.0.0.2', port: ports.valid });
  t.like(out, { host: '127.0.0.2', chainValid: true, hostnameMatches: false });
});

for (const [host, reason] of [
  ['10.0.0.1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['169.254.169.254', 'metadata'],
  [N.private10, 'private'],
  [N.aliasPrivate, 'private'],
] as const) {
  test(`a non-public target is refused: ${host}`, async (t) => {
    const err = await rejectsWith(t, check({ host, port: 443 }, ctx), 'target_not_allowed');
    t.is(err.extras.reason, reason);
  });
}

test('a closed port, a server that speaks no TLS and an unresolvable name are 502', async (t) => {
  t.is((await rejectsWith(t, check({ host: N.fixture, port: ports.closed }, ctx), 'upstream_error')).extras.reason, 'connection_refused');
  t.is((await rejectsWith(t, check({ host: N.fixture, port: ports.plain }, ctx), 'upstream_error')).extras.reason, 'tls');
  t.is((await rejectsWith(t, check({ host: N.servfail, port: 443 }, ctx), 'upstream_error')).extras.reason, 'dns_servfail');
});

for (const host of ['https://example.com', 'example.com/path', 'example.com:8443', '[2606:4700::1111]:443']) {
  test(`a host with a scheme, path or port is 400 on /host: ${host}`, async (t) => {
    await rejectsWith(t, check({ host, port: 443 }, ctx), 'validation_failed', '/host');
  });
}

test('subjectAltName parsing: DNS and IP names, quoted values, other kinds left out', (t) => {
  t.deepEqual(
    parseSubjectAltNames(
      'DNS:a.example, DNS:*.b.example, IP Address:192.0.2.1, IP Address:2001:DB8:0:0:0:0:0:1, URI:https://x/, email:a@b',
    ),
    ['a.example', '*.b.example', '192.0.2.1', '2001:DB8:0:0:0:0:0:1'],
  );
  t.deepEqual(parseSubjectAltNames('DNS:"a, b.example", DNS:c.example'), ['a, b.example', 'c.example']);
  t.deepEqual(parseSubjectAltNames(undefined), []);
});

test('days remaining round down, and are negative as soon as the certificate has expired', (t) => {
  const now = new Date('2025-01-10T12:00:00Z');
  t.is(daysUntil('2025-01-20T11:59:59Z', now), 9);
  t.is(daysUntil('2025-01-10T13:00:00Z', now), 0);
  t.is(daysUntil('2025-01-10T11:00:00Z', now), -1);
  t.is(daysUntil('2025-01-07T13:00:00Z', now), -3);
});

test('input schema: host required, port 443 by default, example valid', (t) => {
  const input: Record<string, unknown> = { host: 'example.com' };
  t.true(schemas.input(input));
  t.is(input.port, 443);
  t.false(schemas.input({}));
  t.false(schemas.input({ host: 'example.com', port: 0 }));
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output(structuredClone((schemas.output.schema as { examples: unknown[] }).examples[0])));
});

// ===== Integration: through HTTP against the running stack (npm test) =====

test('HTTP: a valid certificate answers 200 and costs 2 credits', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'ssl-check', { host: N.fixture, port: ports.valid });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.like(res.body, { host: 'fixture.test', subject: 'CN=fixture.test', chainValid: true, hostnameMatches: true, daysRemaining: 29 });
  t.deepEqual(res.body.subjectAlternativeNames, ['fixture.test']);
  t.is(res.headers.get('x-credits-charged'), '2');
  t.is(await balanceOf(account), 8);
});

test('HTTP: an expired or self-signed certificate is a charged 200 answer', async (t) => {
  const account = await newAccount(10);
  const expired = await callTool(account.apiKey, 'ssl-check', { host: N.fixture, port: ports.expired });
  t.is(expired.status, 200);
  t.like(expired.body, { chainValid: false, chainError: 'CERT_HAS_EXPIRED', daysRemaining: -3 });
  const self = await callTool(account.apiKey, 'ssl-check', { host: N.fixture, port: ports.selfSigned });
  t.like(self.body, { chainValid: false, chainError: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  t.is(await balanceOf(account), 6);
});

test('HTTP: private and loopback targets are 422 and not charged', async (t) => {
  const account = await newAccount(10);
  for (const host of ['10.0.0.1', '127.0.0.1', N.loopback, N.private192]) {
    const res = await callTool(account.apiKey, 'ssl-check', { host });
    t.true(isProblem(res, 422, 'target_not_allowed'), `${host}: ${JSON.stringify(res.body)}`);
  }
  t.is(await balanceOf(account), 10);
});

test('HTTP: an unreachable server is 502 and refunded; a URL is 400', async (t) => {
  const account = await newAccount(10);
  const closed = await callTool(account.apiKey, 'ssl-check', { host: N.fixture, port: ports.closed });
  t.true(isProblem(closed, 502, 'upstream_error'), JSON.stringify(closed.body));
  t.is(closed.body.reason, 'connection_refused');
  const url = await callTool(account.apiKey, 'ssl-check', { host: 'https://fixture.test/' });
  t.true(isProblem(url, 400, 'validation_failed'));
  t.is(await balanceOf(account), 10);
});
