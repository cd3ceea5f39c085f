//! The target guard refuses every non-public address (literal, alternately encoded, embedded in
//! IPv6, or behind a DNS name), lets public ones and allowlisted ones through, and pins answers.
//! Which literal addresses are public, range by range: test/lib/address-class.test.ts.
import test from 'ava';
import { ConfigError } from '../../lib/config.js';
import { ServiceError } from '../../contracts/errors.js';
import { createResolver } from '../../lib/resolver.js';
import { checkAddress, parseAllowlist, parseAllowlistEntry } from '../../lib/target-allowlist.js';
import { createTargetGuard, type TargetGuard } from '../../lib/target-guard.js';
import { normaliseHost } from '../../lib/target-host.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';

const FIXTURE_PORT = 8443;
let dns: DnsServer;
let guard: TargetGuard;

test.before(async () => {
  dns = await startDnsServer();
  // Generous: the DNS fixture shares this process with CPU-bound property tests.
  const resolver = createResolver({ servers: [dns.address], timeoutMs: 5000 });
  guard = createTargetGuard({ allowlist: [`127.0.0.1/32:${FIXTURE_PORT}`, `127.0.0.2/32:${FIXTURE_PORT}`], resolver });
});
test.after.always(() => dns?.close());

/** The refusal `fn` throws: a ServiceError with code and reason. */
async function refusal(fn: () => unknown): Promise<ServiceError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal, got none');
}

// ---------------------------------------------------------------------------------------------
// URLs: alternate IPv4 encodings the WHATWG parser normalises

const ENCODED_URLS: Array<[string, string]> = [
  ['http://2130706433/', 'loopback'], // decimal
  ['http://0177.0.0.1/', 'loopback'], // octal
  ['http://0x7f.1/', 'loopback'], // hex, short
  ['http://0x7f000001/', 'loopback'], // one hex number
  ['http://017700000001/', 'loopback'], // one octal number
  ['http://127.1/', 'loopback'], // two parts
  ['http://127.0.1/', 'loopback'], // three parts
  ['http://0x7f.0.0x0.1/', 'loopback'], // mixed hex and decimal
  ['http://0177.0x0.0.1/', 'loopback'], // mixed octal and hex
  ['http://127.000.000.001/', 'loopback'], // zero padded
  ['http://127.0.0.1./', 'loopback'], // trailing dot
  ['http://１２７.０.０.１/', 'loopback'], // full-width digits (IDNA maps them)
  ['http://[::ffff:127.0.0.1]/', 'loopback'],
  ['http://[0:0:0:0:0:ffff:7f00:1]/', 'loopback'],
  ['http://[::1]:8080/', 'loopback'],
  ['http://0/', 'unspecified'],
  ['http://0x0/', 'unspecified'],
  ['http://169.254.43518/', 'metadata'], // 169.254.169.254, last part 16 bits
  ['http://2852039166/', 'metadata'],
  ['http://0xA9FEA9FE/', 'metadata'],
  ['http://0251.0376.0251.0376/', 'metadata'],
  ['http://10.1/', 'private'],
  ['http://3232235777/', 'private'], // 192.168.1.1
  ['https://[fd00:ec2::254]/latest/meta-data/', 'metadata'],
  ['http://[64:ff9b::7f00:1]/', 'loopback'],
];
for (const [url, reason] of ENCODED_URLS) {
  test(`checkUrl refuses ${url} as ${reason}`, async (t) => {
    const err = await refusal(() => guard.checkUrl(url));
    t.is(err.code, 'target_not_allowed');
    t.is(err.extras.reason, reason);
  });
}

test('checkUrl keeps the name for Host and SNI and fills in the default port', (t) => {
  t.like(guard.checkUrl('https://Public.TEST/path?q=1'), { hostname: 'public.test', port: 443 });
  t.like(guard.checkUrl('http://public.test:8080/'), { hostname: 'public.test', port: 8080 });
  t.like(guard.checkUrl('http://8.8.8.8/'), { hostname: '8.8.8.8', port: 80, ip: '8.8.8.8' });
});

// ---------------------------------------------------------------------------------------------
// Schemes and credentials

const BAD_URLS: Array<[string, string]> = [
  ['ftp://public.test/file', 'scheme'],
  ['file:///etc/passwd', 'scheme'],
  ['gopher://public.test:70/_stats', 'scheme'],
  ['javascript:alert(1)', 'scheme'],
  ['data:text/plain,hello', 'scheme'],
  ['ws://public.test/', 'scheme'],
  ['http://user:secret@public.test/', 'credentials'],
  ['http://user@public.test/', 'credentials'],
  ['https://:secret@public.test/', 'credentials'],
  ['not a url', 'invalid_url'],
  ['/relative/path', 'invalid_url'],
  ['http://', 'invalid_url'],
  ['http://public.test:0/', 'invalid_port'],
  ['http://a..b/', 'invalid_host'],
];
for (const [url, reason] of BAD_URLS) {
  test(`checkUrl refuses ${JSON.stringify(url)} (${reason})`, async (t) => {
    const err = await refusal(() => guard.checkUrl(url));
    t.is(err.code, 'target_not_allowed');
    t.is(err.extras.reason, reason);
  });
}

test('a caller may widen the schemes it accepts', (t) => {
  t.like(guard.checkUrl('wss://public.test/socket', { schemes: ['ws', 'wss'] }), { port: 443 });
  t.throws(() => guard.checkUrl('https://public.test/', { schemes: ['ws:'] }), { instanceOf: ServiceError });
});

// ---------------------------------------------------------------------------------------------
// Bare hosts (ping, ssl-check, smtp-test)

const LOOPBACK_HOSTS = [
  '2130706433',
  '0x7f.1',
  '0177.0.0.1',
  '127.1',
  '[::1]',
  '::1',
  '::ffff:127.0.0.1',
  'LOCALHOST',
  'localhost.',
  'api.localhost',
];
for (const host of LOOPBACK_HOSTS) {
  test(`resolveTarget refuses bare host ${host} as loopback`, async (t) => {
    const err = await refusal(() => guard.resolveTarget(host, 25));
    t.is(err.extras.reason, 'loopback');
  });
}

const INVALID_HOSTS: Array<[string, string]> = [
  ['public.test:80', 'invalid_host'],
  ['public test', 'invalid_host'],
  ['user@public.test', 'invalid_host'],
  ['public.test/path', 'invalid_host'],
  ['fe80::1%eth0', 'invalid_host'],
  ['a..b', 'invalid_host'],
  ['exa%6dple.com', 'invalid_host'],
  ['   ', 'empty_host'],
];
for (const [host, reason] of INVALID_HOSTS) {
  test(`resolveTarget refuses ${JSON.stringify(host)} (${reason})`, async (t) => {
    const err = await refusal(() => guard.resolveTarget(host, 443));
    t.is(err.extras.reason, reason);
  });
}

test('normaliseHost lowercases, drops the trailing dot and converts IDN to punycode', (t) => {
  t.deepEqual(normaliseHost('WWW.Example.COM.'), { hostname: 'www.example.com' });
  t.deepEqual(normaliseHost('bücher.de'), { hostname: 'xn--bcher-kva.de' });
  t.deepEqual(normaliseHost('[2606:4700:4700:0:0:0:0:1111]'), { hostname: '2606:4700:4700::1111', ip: '2606:4700:4700::1111', family: 6 });
});

test('resolveTarget refuses ports outside 1-65535', async (t) => {
  t.is((await refusal(() => guard.resolveTarget('public.test', 0))).extras.reason, 'invalid_port');
  t.is((await refusal(() => guard.resolveTarget('public.test', 65536))).extras.reason, 'invalid_port');
});

// ---------------------------------------------------------------------------------------------
// Names served by the DNS fixture

const REFUSED_NAMES: Array<[string, string]> = [
  [N.private10, 'private'],
  [N.private172, 'private'],
  [N.private192, 'private'],
  [N.loopback, 'loopback'],
  [N.loopbackOther, 'loopback'],
  [N.loopback6, 'loopback'],
  [N.linkLocal6, 'link_local'],
  [N.metadata, 'metadata'],
  [N.metadata6, 'metadata'],
  [N.cgnat, 'cgnat'],
  [N.mapped, 'loopback'],
  [N.nat64, 'private'],
  [N.mixed, 'private'],
  [N.mixedFamilies, 'private'],
  [N.aliasPrivate, 'private'],
];
for (const [name, reason] of REFUSED_NAMES) {
  test(`a name resolving to a ${reason} address is refused: ${name}`, async (t) => {
    const err = await refusal(() => guard.resolveTarget(name, 443));
    t.is(err.code, 'target_not_allowed');
    t.is(err.extras.reason, reason);
    t.regex(err.message, new RegExp(`${name.replace('.', '\\.')} resolves to`));
    t.notRegex(err.message, /\d+\.\d+\.\d+\.\d+|::/, 'the resolved address is not shown to the client');
  });
}

test('a URL whose name resolves privately is refused by resolveUrl', async (t) => {
  const err = await refusal(() => guard.resolveUrl(`http://${N.private10}/admin`));
  t.is(err.extras.reason, 'private');
});

const UNRESOLVABLE: Array<[string, string]> = [
  [N.nxdomain, 'dns_nxdomain'],
  [N.nodata, 'dns_nodata'],
  [N.servfail, 'dns_servfail'],
  [N.refused, 'dns_refused'],
  [N.timeout, 'dns_timeout'],
];
for (const [name, reason] of UNRESOLVABLE) {
  test(`an unresolvable name is an upstream error: ${name} (${reason})`, async (t) => {
    // Short only where the timeout is the point; the fixture's answers may be slow on a busy machine.
    const timeoutMs = reason === 'dns_timeout' ? 500 : 5000;
    const quick = createTargetGuard({ allowlist: [], resolver: createResolver({ servers: [dns.address], timeoutMs }) });
    const err = await refusal(() => quick.resolveTarget(name, 443));
    t.is(err.code, 'upstream_error');
    t.is(err.extras.reason, reason);
  });
}

test('a public name resolves to a pinned target, IPv4 first, with every checked address', async (t) => {
  const target = await guard.resolveTarget(N.public, 443);
  t.like(target, { hostname: 'public.test', port: 443, address: '93.184.215.14', family: 4, via: 'public' });
  t.deepEqual([...target.addresses], ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  t.true(Object.isFrozen(target));
  t.true(guard.issued(target));
  t.false(guard.issued({ ...target }), 'a copy made outside the guard is not a guard target');
});

test('an IPv6-only public name resolves to its IPv6 address', async (t) => {
  t.like(await guard.resolveTarget(N.public6, 443), { address: '2606:4700:4700::1111', family: 6 });
});

test('a CNAME to a public name is allowed', async (t) => {
  t.like(await guard.resolveTarget(N.alias, 80), { address: '93.184.215.14' });
});

test('a public IP literal is returned without asking DNS', async (t) => {
  const before = dns.queries.length;
  t.like(await guard.resolveTarget('0x08080808', 53), { hostname: '8.8.8.8', address: '8.8.8.8' });
  t.is(dns.queries.length, before);
});

// ---------------------------------------------------------------------------------------------
// Allowlist

test('an allowlist entry with a port lets exactly that port through', async (t) => {
  t.like(await guard.resolveTarget(N.fixture, FIXTURE_PORT), { address: '127.0.0.2', via: 'allowlist' });
  const err = await refusal(() => guard.resolveTarget(N.fixture, FIXTURE_PORT + 1));
  t.is(err.extras.reason, 'loopback');
  t.like(guard.checkUrl(`http://127.0.0.1:${FIXTURE_PORT}/`), { ip: '127.0.0.1' });
  t.is((await refusal(() => guard.checkUrl('http://127.0.0.1:22/'))).extras.reason, 'loopback');
});

test('the allowlist covers only its own addresses, not the rest of the range', async (t) => {
  const err = await refusal(() => guard.resolveTarget(N.loopbackOther, FIXTURE_PORT));
  t.is(err.extras.reason, 'loopback');
});

test('an allowlist entry without a port lets every port through', async (t) => {
  const resolver = createResolver({ servers: [dns.address], timeoutMs: 5000 });
  const open = createTargetGuard({ allowlist: ['10.0.0.0/8'], resolver });
  t.like(await open.resolveTarget(N.private10, 22), { address: '10.0.0.1', via: 'allowlist' });
  t.like(await open.resolveTarget(N.private10, 8080), { address: '10.0.0.1' });
  t.is((await refusal(() => open.resolveTarget(N.private192, 80))).extras.reason, 'private');
});

test('IPv6 allowlist entries in brackets carry a port', (t) => {
  const allowlist = parseAllowlist(['[::1]/128:8443']);
  t.like(checkAddress('::1', 8443, allowlist), { allowed: true, via: 'allowlist' });
  t.like(checkAddress('::1', 8444, allowlist), { allowed: false, reason: 'loopback' });
});

test('an IPv4 allowlist entry also matches the IPv4-mapped form of its address', (t) => {
  const allowlist = parseAllowlist(['127.0.0.1/32:8443']);
  t.like(checkAddress('::ffff:127.0.0.1', 8443, allowlist), { allowed: true, via: 'allowlist' });
});

test('metadata addresses pass only an entry naming that exact address', (t) => {
  t.like(checkAddress('169.254.169.254', 80, parseAllowlist(['169.254.0.0/16'])), { allowed: false, reason: 'metadata' });
  t.like(checkAddress('169.254.169.254', 80, parseAllowlist(['0.0.0.0/0'])), { allowed: false, reason: 'metadata' });
  t.like(checkAddress('169.254.1.1', 80, parseAllowlist(['169.254.0.0/16'])), { allowed: true });
  t.like(checkAddress('169.254.169.254', 80, parseAllowlist(['169.254.169.254/32:80'])), { allowed: true, via: 'allowlist' });
});

test('allowlist entries in every accepted form parse', (t) => {
  t.like(parseAllowlistEntry('10.0.0.0/8'), { prefix: 8, port: undefined });
  t.like(parseAllowlistEntry('127.0.0.1/32:8080'), { prefix: 32, port: 8080 });
  t.like(parseAllowlistEntry('127.0.0.1'), { prefix: 32 });
  t.like(parseAllowlistEntry('[::1]/128:8443'), { prefix: 128, port: 8443 });
  t.like(parseAllowlistEntry('[::1]:8443'), { prefix: 128, port: 8443 });
  t.like(parseAllowlistEntry('fd00::/8'), { prefix: 8 });
  t.deepEqual(
    parseAllowlist([' 10.0.0.0/8 ', '', '192.168.0.0/16:80']).map((e) => e.text),
    ['10.0.0.0/8', '192.168.0.0/16:80'],
  );
});

for (const entry of [
  '10.0.0.1/8',
  '::1:8443',
  '::1',
  'localhost',
  '10.0.0.0/33',
  '127.0.0.1:0',
  '127.0.0.1:70000',
  '0177.0.0.1/32',
  '[fe80::1%eth0]/128',
  '1.2.3/24',
  '[::1]/129',
]) {
  test(`a bad allowlist entry stops the guard from starting: ${entry}`, (t) => {
    t.throws(
      () =>
        createTargetGuard({ allowlist: [entry], resolver: { lookup: async () => ({ found: false, status: 'nxdomain', addresses: [] }) } }),
      {
        instanceOf: ConfigError,
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Rebinding: each resolution is checked on its own; a target, once checked, does not change

test('a name whose answer alternates is allowed only while it points at the allowlisted address', async (t) => {
  dns.setRecords(N.rebind, { sequence: [[{ type: 'A', data: '127.0.0.1', ttl: 0 }], [{ type: 'A', data: '10.0.0.1', ttl: 0 }]] });
  const first = await guard.resolveTarget(N.rebind, FIXTURE_PORT);
  t.is(first.address, '127.0.0.1');
  const err = await refusal(() => guard.resolveTarget(N.rebind, FIXTURE_PORT));
  t.is(err.extras.reason, 'private');
  t.is(first.address, '127.0.0.1', 'the target handed out earlier still names the checked address');
  t.is(dns.queryCount(N.rebind, 'A'), 2);
});

test('localhost names resolve to loopback without DNS and pass only when allowlisted', async (t) => {
  const before = dns.queries.length;
  t.is((await refusal(() => guard.resolveTarget('localhost', FIXTURE_PORT))).extras.reason, 'loopback', '::1 is not allowlisted');
  const local = createTargetGuard({
    allowlist: ['127.0.0.1/32:8443', '[::1]/128:8443'],
    resolver: { lookup: () => Promise.reject(new Error('no DNS')) },
  });
  t.like(await local.resolveTarget('localhost', 8443), { address: '127.0.0.1', addresses: ['127.0.0.1', '::1'] });
  t.is(dns.queries.length, before);
});
