//! The resolver answers every record type from the configured servers, tells "no such name" and
//! "no such record" apart from resolver failures, and refuses malformed DNS_SERVERS entries.
import test from 'ava';
import { ConfigError } from '../../lib/config.js';
import { classifyDnsError, createResolver, DnsError, parseDnsServer, type DnsResolver } from '../../lib/resolver.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';

let dns: DnsServer;
let resolver: DnsResolver;

test.before(async () => {
  dns = await startDnsServer();
  resolver = createResolver({ servers: [dns.address], timeoutMs: 3000 });
});
test.after.always(() => dns?.close());

test('A records come with their TTL', async (t) => {
  t.deepEqual(await resolver.resolve(N.public, 'A'), { found: true, records: [{ address: '93.184.215.14', ttl: 300 }] });
});

test('AAAA records come with their TTL', async (t) => {
  t.deepEqual(await resolver.resolve(N.public, 'AAAA'), {
    found: true,
    records: [{ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', ttl: 600 }],
  });
});

test('MX records carry exchange and priority', async (t) => {
  const answer = await resolver.resolve(N.mail, 'MX');
  t.deepEqual(answer.records, [
    { exchange: 'mx1.test', priority: 10 },
    { exchange: 'mx2.test', priority: 20 },
  ]);
});

test('TXT records keep their character-strings apart', async (t) => {
  const answer = await resolver.resolve(N.txt, 'TXT');
  t.deepEqual(answer.records, [['v=spf1 -all'], ['part one', 'part two']]);
});

test('NS, CNAME and SOA records', async (t) => {
  t.deepEqual((await resolver.resolve(N.apex, 'NS')).records, ['ns1.test', 'ns2.test']);
  t.deepEqual((await resolver.resolve(N.alias, 'CNAME')).records, ['public.test']);
  t.deepEqual((await resolver.resolve(N.apex, 'SOA')).records, [
    { nsname: 'ns1.test', hostmaster: 'hostmaster.test', serial: 2024010101, refresh: 7200, retry: 900, expire: 1209600, minttl: 60 },
  ]);
});

test('A queries follow a CNAME to its addresses', async (t) => {
  t.like((await resolver.resolve(N.alias, 'A')).records, [{ address: '93.184.215.14' }]);
});

test('an answer too large for UDP is fetched again over TCP', async (t) => {
  const answer = await resolver.resolve(N.bigTxt, 'TXT');
  t.is(answer.records.length, 30);
  t.true(dns.queries.some((q) => q.name === N.bigTxt && q.transport === 'tcp'));
});

test('NXDOMAIN and no-data are negative answers, told apart', async (t) => {
  t.deepEqual(await resolver.resolve(N.nxdomain, 'A'), { found: false, status: 'nxdomain', records: [] });
  t.deepEqual(await resolver.resolve(N.nodata, 'A'), { found: false, status: 'nodata', records: [] });
  t.deepEqual(await resolver.resolve(N.public, 'CNAME'), { found: false, status: 'nodata', records: [] });
  t.deepEqual(await resolver.resolve(N.public, 'MX'), { found: false, status: 'nodata', records: [] });
});

test('SERVFAIL and REFUSED are failures, not negative answers', async (t) => {
  const servfail = await t.throwsAsync(resolver.resolve(N.servfail, 'A'), { instanceOf: DnsError });
  t.is(servfail.kind, 'servfail');
  const refused = await t.throwsAsync(resolver.resolve(N.refused, 'MX'), { instanceOf: DnsError });
  t.is(refused.kind, 'refused');
});

test('a silent server is a timeout once the deadline has passed', async (t) => {
  const quick = createResolver({ servers: [dns.address], timeoutMs: 400 });
  const started = Date.now();
  const err = await t.throwsAsync(quick.resolve(N.timeout, 'A'), { instanceOf: DnsError });
  t.is(err.kind, 'timeout');
  t.true(Date.now() - started >= 390, 'not before the deadline');
});

test('lookup returns A then AAAA addresses with family and TTL', async (t) => {
  t.deepEqual(await resolver.lookup(N.public), {
    found: true,
    addresses: [
      { address: '93.184.215.14', ttl: 300, family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', ttl: 600, family: 6 },
    ],
  });
  t.like(await resolver.lookup(N.public6), { found: true, addresses: [{ address: '2606:4700:4700::1111', family: 6 }] });
});

test('lookup reports names without addresses as negative answers', async (t) => {
  t.deepEqual(await resolver.lookup(N.nodata), { found: false, status: 'nodata', addresses: [] });
  t.deepEqual(await resolver.lookup(N.nxdomain), { found: false, status: 'nxdomain', addresses: [] });
});

test('lookup throws when the resolver fails', async (t) => {
  const err = await t.throwsAsync(resolver.lookup(N.servfail), { instanceOf: DnsError });
  t.is(err.kind, 'servfail');
  t.regex(err.message, /servfail\.test/);
});

test('the configured servers are used', (t) => {
  t.deepEqual(resolver.servers(), [dns.address]);
});

test('DNS_SERVERS entries in every accepted form', (t) => {
  t.is(parseDnsServer('8.8.8.8'), '8.8.8.8');
  t.is(parseDnsServer(' 127.0.0.1:5353 '), '127.0.0.1:5353');
  t.is(parseDnsServer('2001:4860:4860::8888'), '[2001:4860:4860::8888]');
  t.is(parseDnsServer('[2001:4860:4860::8888]'), '[2001:4860:4860::8888]');
  t.is(parseDnsServer('[::1]:5353'), '[::1]:5353');
});

for (const entry of ['dns.google', '8.8.8.8:0', '8.8.8.8:65536', '8.8.8', '[::1', '[8.8.8.8]:53', '::1:53:x', '']) {
  test(`a bad DNS_SERVERS entry is a configuration error: ${JSON.stringify(entry)}`, (t) => {
    t.throws(() => createResolver({ servers: [entry] }), { instanceOf: ConfigError });
  });
}

test('c-ares codes map to negative answers or failure kinds', (t) => {
  t.is(classifyDnsError('ENOTFOUND'), 'nxdomain');
  t.is(classifyDnsError('ENODATA'), 'nodata');
  t.is(classifyDnsError('ESERVFAIL'), 'servfail');
  t.is(classifyDnsError('ETIMEOUT'), 'timeout');
  t.is(classifyDnsError('ECONNREFUSED'), 'unreachable');
  t.is(classifyDnsError('EBADRESP'), 'bad_response');
  t.is(classifyDnsError('ESOMETHING'), 'error');
});
