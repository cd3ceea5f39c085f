//! dns-lookup: every record type from a real DNS server, NXDOMAIN and no-data as answers, resolver
//! failures as 502, answers cached for their TTL, internal names refused; then the same through
//! HTTP against the running stack.
import test, { type ExecutionContext } from 'ava';
import { createDnsLookup } from '../../activities/tools/dns-lookup.js';
import { CACHE_RULES } from '../../activities/network/dns-records.js';
import { createTtlCache } from '../../activities/network/ttl-cache.js';
import type { DnsLookupInput } from '../../domain/tools/dns-lookup.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { createResolver } from '../../lib/resolver.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, against the DNS fixture (no stack) =====

const schemas = compileToolSchemas('dns-lookup');
const ctx = standaloneContext();
let dns: DnsServer;
let resolver: ReturnType<typeof createResolver>;
let lookup: ReturnType<typeof createDnsLookup>;

test.before(async () => {
  dns = await startDnsServer();
  resolver = createResolver({ servers: [dns.address] });
  lookup = createDnsLookup({ resolver });
});
test.after.always(() => dns?.close());

type Lookup = ReturnType<typeof createDnsLookup>;

/** Calls a handler with schema defaults applied, and checks the output against its schema. */
async function askWith(t: ExecutionContext, handler: Lookup, input: Partial<DnsLookupInput>) {
  const output = await handler(validInput<DnsLookupInput>(t, schemas.input, input), ctx);
  t.true(schemas.output(output), JSON.stringify(schemas.output.errors));
  return output;
}
const ask = (t: ExecutionContext, input: Partial<DnsLookupInput>) => askWith(t, lookup, input);

/** A handler of its own with a clock the test moves (tests in a file run concurrently). */
function withClock() {
  const clock = { now: Date.now() };
  const handler = createDnsLookup({ resolver, cache: createTtlCache({ now: () => clock.now }) });
  return { clock, ask: (t: ExecutionContext, input: Partial<DnsLookupInput>) => askWith(t, handler, input) };
}

test('A: addresses with their TTL', async (t) => {
  const out = await ask(t, { hostname: N.public });
  t.like(out, { hostname: 'public.test', recordType: 'A', found: true, status: 'found' });
  t.deepEqual(out.records, [{ address: '93.184.215.14', ttl: 300 }]);
});

test('AAAA: IPv6 addresses with their TTL', async (t) => {
  const out = await ask(t, { hostname: N.public, recordType: 'AAAA' });
  t.deepEqual(out.records, [{ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', ttl: 600 }]);
});

test('MX: exchanges by priority', async (t) => {
  const out = await ask(t, { hostname: N.mail, recordType: 'MX' });
  t.deepEqual(out.records, [
    { priority: 10, exchange: 'mx1.test' },
    { priority: 20, exchange: 'mx2.test' },
  ]);
});

test('TXT: each record joined and as its character-strings', async (t) => {
  const out = await ask(t, { hostname: N.txt, recordType: 'TXT' });
  t.deepEqual(out.records, [
    { text: 'part onepart two', parts: ['part one', 'part two'] },
    { text: 'v=spf1 -all', parts: ['v=spf1 -all'] },
  ]);
});

test('TXT answers too large for UDP arrive complete (over TCP)', async (t) => {
  const out = await ask(t, { hostname: N.bigTxt, recordType: 'TXT' });
  t.is(out.records.length, 30);
});

test('NS, SOA and CNAME', async (t) => {
  t.deepEqual((await ask(t, { hostname: N.apex + '.', recordType: 'NS' })).records, [
    { nameserver: 'ns1.test' },
    { nameserver: 'ns2.test' },
  ]);
  t.deepEqual((await ask(t, { hostname: 'TEST', recordType: 'SOA' })).records, [
    {
      primaryNameserver: 'ns1.test',
      hostmaster: 'hostmaster.test',
      serial: 2024010101,
      refresh: 7200,
      retry: 900,
      expire: 1209600,
      minimumTtl: 60,
    },
  ]);
  t.deepEqual((await ask(t, { hostname: N.alias, recordType: 'CNAME' })).records, [{ target: 'public.test' }]);
});

test("an A query of an alias answers the addresses it leads to, with the chain's shortest TTL", async (t) => {
  t.deepEqual((await ask(t, { hostname: N.alias })).records, [{ address: '93.184.215.14', ttl: 60 }]);
});

test('NXDOMAIN and no-data are answers: found false, no records, and which one', async (t) => {
  t.like(await ask(t, { hostname: N.nxdomain }), { found: false, status: 'nxdomain', records: [] });
  t.like(await ask(t, { hostname: N.nodata, recordType: 'MX' }), { found: false, status: 'nodata', records: [] });
  t.like(await ask(t, { hostname: N.public, recordType: 'CNAME' }), { found: false, status: 'nodata', records: [] });
});

test('a public name with a private address is answered (any public resolver would)', async (t) => {
  t.deepEqual((await ask(t, { hostname: N.private10 })).records, [{ address: '10.0.0.1', ttl: 300 }]);
});

for (const [name, reason] of [
  [N.servfail, 'dns_servfail'],
  [N.refused, 'dns_refused'],
  [N.timeout, 'dns_timeout'],
] as const) {
  test(`a resolver failure is 502 upstream_error: ${name} (${reason})`, async (t) => {
    // The silent name never answers, so a short deadline decides nothing by pace.
    const handler =
      name === N.timeout ? createDnsLookup({ resolver: createResolver({ servers: [dns.address], timeoutMs: 1_000 }) }) : lookup;
    const err = await rejectsWith(t, handler({ hostname: name, recordType: 'A' }, ctx), 'upstream_error');
    t.is(err.extras.reason, reason);
  });
}

test('an answer is served from cache for its TTL, counting down, then asked again', async (t) => {
  const { clock, ask } = withClock();
  dns.setRecords('ttl.test', [{ type: 'A', data: '93.184.215.30', ttl: 120 }]);
  const first = await ask(t, { hostname: 'ttl.test' });
  t.false(first.cached);
  clock.now += 50_000;
  const second = await ask(t, { hostname: 'ttl.test' });
  t.true(second.cached);
  t.deepEqual(second.records, [{ address: '93.184.215.30', ttl: 70 }]);
  t.is(dns.queryCount('ttl.test', 'A'), 1);
  clock.now += 71_000;
  t.false((await ask(t, { hostname: 'ttl.test' })).cached);
  t.is(dns.queryCount('ttl.test', 'A'), 2);
});

test('a TTL of 0 is never cached', async (t) => {
  const { ask } = withClock();
  dns.setRecords('ttl0.test', [{ type: 'A', data: '93.184.215.31', ttl: 0 }]);
  await ask(t, { hostname: 'ttl0.test' });
  t.false((await ask(t, { hostname: 'ttl0.test' })).cached);
  t.is(dns.queryCount('ttl0.test', 'A'), 2);
});

test('types without a TTL from node are cached for the documented fixed time; negative answers for less', async (t) => {
  const { clock, ask } = withClock();
  dns.setRecords('fixed.test', [{ type: 'MX', data: { preference: 5, exchange: 'mx.fixed.test' }, ttl: 86_400 }]);
  await ask(t, { hostname: 'fixed.test', recordType: 'MX' });
  clock.now += (CACHE_RULES.untypedTtlSeconds - 1) * 1000;
  t.true((await ask(t, { hostname: 'fixed.test', recordType: 'MX' })).cached);
  clock.now += 2_000;
  t.false((await ask(t, { hostname: 'fixed.test', recordType: 'MX' })).cached);

  await ask(t, { hostname: 'missing-now.test' });
  dns.setRecords('missing-now.test', [{ type: 'A', data: '93.184.215.32' }]);
  t.like(await ask(t, { hostname: 'missing-now.test' }), { found: false, cached: true });
  clock.now += CACHE_RULES.negativeTtlSeconds * 1000 + 1;
  t.like(await ask(t, { hostname: 'missing-now.test' }), { found: true, cached: false });
});

test('the cache is per name and type, case and trailing dot aside', async (t) => {
  const { ask } = withClock();
  await ask(t, { hostname: 'Mail.Test.', recordType: 'MX' });
  t.true((await ask(t, { hostname: 'mail.test', recordType: 'MX' })).cached);
  t.false((await ask(t, { hostname: 'mail.test', recordType: 'TXT' })).cached);
});

for (const hostname of [
  'localhost',
  'db',
  'redis',
  'printer.local',
  'metadata.google.internal',
  'api.svc.cluster.local',
  '1.0.0.10.in-addr.arpa',
  'router.home.arpa',
  'nas.lan',
  'dc1.corp',
  'box.localdomain',
]) {
  test(`an internal name is refused before any query: ${hostname}`, async (t) => {
    const before = dns.queries.length;
    const err = await rejectsWith(t, lookup({ hostname, recordType: 'A' }, ctx), 'target_not_allowed');
    t.is(err.extras.reason, 'internal_name');
    await rejectsWith(t, () => findTool('dns-lookup')!.precheck!({ hostname, recordType: 'A' }), 'target_not_allowed');
    t.is(dns.queries.length, before);
  });
}

for (const [hostname, why] of [
  ['https://example.com/', /without a scheme/],
  ['example.com/path', /without a scheme/],
  ['93.184.215.14', /not an IP address/],
  ['[2606:4700::1111]', /not an IP address/],
  ['exa mple.com', /without a scheme|valid domain/],
  ['-bad-.example.com', /valid domain name/],
  ['a..b.com', /valid domain name/],
  [`${'a'.repeat(64)}.com`, /valid domain name/],
] as const) {
  test(`not a domain name is 400 on /hostname: ${hostname.slice(0, 30)}`, async (t) => {
    const err = await rejectsWith(t, lookup({ hostname, recordType: 'A' }, ctx), 'validation_failed', '/hostname');
    t.regex(err.message, why);
  });
}

test('an internationalised name is asked in its punycode form', async (t) => {
  const out = await ask(t, { hostname: 'bücher.test' });
  t.like(out, { hostname: 'xn--bcher-kva.test', status: 'nxdomain' });
  t.is(dns.queryCount('xn--bcher-kva.test', 'A'), 1);
});

test("a single-label name is answered for NS and SOA only (a top-level domain's delegation is public)", async (t) => {
  t.true((await ask(t, { hostname: N.apex, recordType: 'SOA' })).found);
  await rejectsWith(t, lookup({ hostname: N.apex, recordType: 'A' }, ctx), 'target_not_allowed');
  await rejectsWith(t, lookup({ hostname: N.apex, recordType: 'TXT' }, ctx), 'target_not_allowed');
});

test('input schema: hostname required, A by default, known types only, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ hostname: 'example.com', recordType: 'PTR' }));
  t.false(schemas.input({ hostname: 'example.com', server: '8.8.8.8' }));
  const input: Record<string, unknown> = { hostname: 'example.com' };
  t.true(schemas.input(input));
  t.is(input.recordType, 'A');
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output(structuredClone((schemas.output.schema as { examples: unknown[] }).examples[0])));
});

// ===== Integration: through HTTP against the running stack (npm test) =====

test('HTTP: MX records answer 200 and cost 1 credit', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'dns-lookup', { hostname: N.mail, recordType: 'MX' });
  t.is(res.status, 200);
  t.like(res.body, { hostname: 'mail.test', recordType: 'MX', found: true });
  t.deepEqual(res.body.records, [
    { priority: 10, exchange: 'mx1.test' },
    { priority: 20, exchange: 'mx2.test' },
  ]);
  t.is(res.headers.get('x-credits-charged'), '1');
  t.is(await balanceOf(account), 9);
});

test('HTTP: every record type answers 200', async (t) => {
  const account = await newAccount(20);
  const cases = [
    [N.public, 'A'],
    [N.public, 'AAAA'],
    [N.txt, 'TXT'],
    [N.apex, 'NS'],
    [N.alias, 'CNAME'],
    [N.apex, 'SOA'],
  ] as const;
  for (const [hostname, recordType] of cases) {
    const res = await callTool(account.apiKey, 'dns-lookup', { hostname, recordType });
    t.is(res.status, 200, `${recordType} ${JSON.stringify(res.body)}`);
    t.true(res.body.found && res.body.records.length > 0, recordType);
  }
});

test('HTTP: NXDOMAIN is a charged 200 with found false', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'dns-lookup', { hostname: N.nxdomain });
  t.is(res.status, 200);
  t.like(res.body, { found: false, records: [], status: 'nxdomain' });
  t.is(await balanceOf(account), 9);
});

test('HTTP: an internal name is 422 target_not_allowed and not charged', async (t) => {
  const account = await newAccount(10);
  for (const hostname of ['db', 'printer.local', 'localhost']) {
    const res = await callTool(account.apiKey, 'dns-lookup', { hostname });
    t.true(isProblem(res, 422, 'target_not_allowed'), hostname);
    t.is(res.body.reason, 'internal_name');
  }
  t.is(await balanceOf(account), 10);
});

test('HTTP: a resolver failure is 502 and refunded', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'dns-lookup', { hostname: N.servfail, recordType: 'TXT' });
  t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
  t.is(res.body.reason, 'dns_servfail');
  t.is(await balanceOf(account), 10);
});

test('HTTP: bad input is 400 naming the field, not charged', async (t) => {
  const account = await newAccount(10);
  const badType = await callTool(account.apiKey, 'dns-lookup', { hostname: 'example.com', recordType: 'PTR' });
  t.true(isProblem(badType, 400, 'validation_failed'));
  t.deepEqual(
    badType.body.errors.map((e: { field: string }) => e.field),
    ['/recordType'],
  );
  const ip = await callTool(account.apiKey, 'dns-lookup', { hostname: '10.0.0.1' });
  t.true(isProblem(ip, 400, 'validation_failed'));
  t.is(await balanceOf(account), 10);
});
