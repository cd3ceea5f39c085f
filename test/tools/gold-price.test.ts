//! gold-price: quotes from a feed server in the providers' formats (gold-api.com metals, Open
//! Exchange Rates currencies), unit and karat math, in-process caching by the provider's max-age,
//! the last good quote in MongoDB served as stale when the feed is down, slow or broken, 502 when
//! there is none; then the same through HTTP against the running stack.
import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { MongoClient, type Db } from 'mongodb';
import { KARATS, TOLA_GRAMS, TROY_OUNCE_GRAMS, karatBreakdown, unitPrices } from '../../activities/network/gold-math.js';
import { createGoldPrice } from '../../activities/tools/gold-price.js';
import { FeedError, createMarketFeeds, maxAgeMs, metalUrl, parseFxRates, parseMetalQuote } from '../../activities/network/market-feeds.js';
import { createQuoteStore } from '../../activities/network/quote-store.js';
import { CURRENCIES, type GoldPriceInput } from '../../domain/tools/gold-price.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { testEnv } from '../helpers/env.js';
import {
  FIXTURE_AS_OF,
  FIXTURE_FX_RATES,
  FIXTURE_METAL_PRICES,
  fxDocument,
  metalDocument,
  setFeedMode,
  startGoldFeed,
  type GoldFeed,
} from '../fixtures/gold-feed.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly, against feed servers and the real database (no mocks) =====

const schemas = compileToolSchemas('gold-price');
const ctx = standaloneContext();
let client: MongoClient;
let db: Db;
const feeds: GoldFeed[] = [];
const databases: Db[] = [];

test.before(async () => {
  const url = process.env.MONGODB_URL;
  if (!url) throw new Error('MONGODB_URL is not set: run the tests through `npm test`, which starts the database');
  client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  // A database of this run's own, so stored quotes of one test never answer for another file's.
  db = client.db(`gold_price_unit_${randomBytes(4).toString('hex')}`);
});
test.after.always(async () => {
  await Promise.allSettled(feeds.map((f) => f.close()));
  await Promise.allSettled([db, ...databases].map((d) => d?.dropDatabase()));
  await client?.close();
});

/** A deadline no healthy feed on loopback misses, however busy the machine. */
const HEALTHY_FEED_TIMEOUT_MS = 15_000;

/** A feed of its own, and handlers reading it with a database of their own (tests of a file run concurrently). */
async function setup(options: { maxAgeSeconds?: number; feedTimeoutMs?: number; slowMs?: number } = {}) {
  const feed = await startGoldFeed({ maxAgeSeconds: options.maxAgeSeconds ?? 60, slowMs: options.slowMs });
  feeds.push(feed);
  const testDb = client.db(`${db.databaseName}_${randomBytes(3).toString('hex')}`);
  databases.push(testDb);
  // The first handler reads the healthy feed with room to spare on a busy machine; `feedTimeoutMs`
  // is the deadline of the handlers a test makes later, against a feed it has slowed.
  const make = (timeoutMs: number) => () =>
    createGoldPrice({
      store: createQuoteStore(testDb),
      feeds: createMarketFeeds({ goldFeedUrl: feed.goldUrl, fxFeedUrl: feed.fxUrl, timeoutMs }),
    });
  return { feed, price: make(HEALTHY_FEED_TIMEOUT_MS)(), newWorker: make(options.feedTimeoutMs ?? HEALTHY_FEED_TIMEOUT_MS), db: testDb };
}

async function quote(t: ExecutionContext, handler: ReturnType<typeof createGoldPrice>, input: Partial<GoldPriceInput> = {}) {
  const out = await handler(validInput<GoldPriceInput>(t, schemas.input, input), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('gold in USD: ounce, gram, tola and every karat from 24K to 10K', async (t) => {
  const { price } = await setup();
  const out = await quote(t, price);
  const perGram = FIXTURE_METAL_PRICES.XAU / TROY_OUNCE_GRAMS;
  t.like(out, {
    metal: 'gold',
    currency: 'USD',
    pricePerOunce: 2400.5,
    pricePerGram: round4(perGram),
    pricePerTola: round4(perGram * 11.6638),
    asOfUtc: FIXTURE_AS_OF,
    fxAsOfUtc: null,
    stale: false,
  });
  t.deepEqual(
    out.karats.map((k) => k.karat),
    [24, 22, 21, 20, 18, 16, 14, 12, 10],
  );
  t.like(out.karats[0], { karat: 24, purity: 1, pricePerOunce: 2400.5, pricePerGram: out.pricePerGram });
  t.like(out.karats[1], {
    karat: 22,
    purity: 0.9167,
    pricePerGram: round4((perGram * 22) / 24),
    pricePerTola: round4(((perGram * 22) / 24) * 11.6638),
  });
  t.like(out.karats.at(-1), { karat: 10, purity: 0.4167, pricePerOunce: round4((2400.5 * 10) / 24) });
});

test('silver has no karats', async (t) => {
  const { price } = await setup();
  const out = await quote(t, price, { metal: 'silver', currency: 'GBP' });
  t.like(out, { metal: 'silver', currency: 'GBP', pricePerOunce: round4(30.25 * 0.79), karats: [] });
});

test('every one of the 32 currencies is priced with its rate', async (t) => {
  const { price } = await setup();
  t.is(CURRENCIES.length, 32);
  for (const currency of CURRENCIES) {
    const out = await quote(t, price, { currency });
    t.is(out.pricePerOunce, round4(2400.5 * FIXTURE_FX_RATES[currency]!), currency);
    if (currency !== 'USD') t.is(out.fxAsOfUtc, FIXTURE_AS_OF);
  }
});

test("a quote is reused from memory while the provider's max-age lasts", async (t) => {
  const { feed, price } = await setup({ maxAgeSeconds: 60 });
  await quote(t, price, { currency: 'EUR' });
  await quote(t, price, { currency: 'PKR' });
  await quote(t, price, { currency: 'EUR' });
  t.is(feed.requests, 2, 'one metal and one FX request for three calls');
});

test('concurrent calls share one feed request', async (t) => {
  const { feed, price } = await setup();
  await Promise.all(Array.from({ length: 10 }, () => quote(t, price, { currency: 'INR' })));
  t.is(feed.requests, 2);
});

test('past the max-age the feed is asked again', async (t) => {
  const { feed, price } = await setup({ maxAgeSeconds: 1 });
  await quote(t, price);
  await sleep(1_100);
  await quote(t, price);
  t.is(feed.requests, 2);
});

test('feed down: the last good quote is served with stale true, and the failing feed is not asked on every call', async (t) => {
  const { feed, price } = await setup({ maxAgeSeconds: 1 });
  const fresh = await quote(t, price, { currency: 'AED' });
  feed.setMode('down');
  await sleep(1_100);
  const stale = await quote(t, price, { currency: 'AED' });
  t.true(stale.stale);
  t.deepEqual({ ...stale, stale: false }, fresh);
  const asked = feed.requests;
  await quote(t, price, { currency: 'AED' });
  t.is(feed.requests, asked, "the failure is remembered for the provider's cache period");
  feed.setMode('up');
  await sleep(1_100);
  t.false((await quote(t, price, { currency: 'AED' })).stale);
});

test('a worker that starts while the feed is down serves the stored quote from the database', async (t) => {
  const { feed, price, newWorker } = await setup();
  await quote(t, price, { currency: 'JPY' });
  feed.setMode('down');
  const out = await quote(t, newWorker(), { currency: 'JPY' });
  t.like(out, { stale: true, pricePerOunce: round4(2400.5 * 156.5) });
});

test('a slow feed counts as down after the feed deadline', async (t) => {
  const { feed, price, newWorker } = await setup({ feedTimeoutMs: 300, slowMs: 5_000 });
  await quote(t, price);
  feed.setMode('slow');
  // The slow feed does answer, with a fresh price, after 5 s: a stale answer is the deadline's.
  t.true((await quote(t, newWorker())).stale);
});

test('no quote at all and the feed down is 502 upstream_error', async (t) => {
  const { feed, price } = await setup();
  feed.setMode('down');
  const err = await rejectsWith(t, price({ metal: 'silver', currency: 'USD' }, ctx), 'upstream_error');
  t.is(err.extras.reason, 'feed_unavailable');
});

test('an unconfigured feed with nothing stored is 502', async (t) => {
  const handler = createGoldPrice({ store: createQuoteStore(db) });
  await rejectsWith(t, handler({ metal: 'gold', currency: 'USD' }, ctx), 'upstream_error');
});

test("metal feed parser: gold-api.com's document, refusing what does not fit", (t) => {
  t.deepEqual(parseMetalQuote(metalDocument('XAU'), 'XAU'), { usdPerOunce: 2400.5, asOfUtc: FIXTURE_AS_OF });
  t.throws(() => parseMetalQuote(metalDocument('XAG'), 'XAU'), { instanceOf: FeedError });
  t.throws(() => parseMetalQuote({ ...metalDocument('XAU'), currency: 'EUR' }, 'XAU'), { instanceOf: FeedError });
  t.throws(() => parseMetalQuote({ ...metalDocument('XAU'), price: -1 }, 'XAU'), { instanceOf: FeedError });
  t.throws(() => parseMetalQuote({ ...metalDocument('XAU'), updatedAt: 'yesterday' }, 'XAU'), { instanceOf: FeedError });
  t.throws(() => parseMetalQuote('<html>', 'XAU'), { instanceOf: FeedError });
});

test("FX parser: Open Exchange Rates' latest.json, re-based on USD whatever its base", (t) => {
  const usd = parseFxRates(fxDocument());
  t.is(usd.perUsd.EUR, 0.92);
  t.is(usd.asOfUtc, FIXTURE_AS_OF);
  t.false('ISK' in usd.perUsd, 'only the 32 supported currencies are kept');
  const eurBase = parseFxRates({ timestamp: 1_700_000_000, base: 'EUR', rates: { USD: 1.25, GBP: 1, EUR: 1 } });
  t.is(eurBase.perUsd.GBP, 0.8);
  t.is(eurBase.perUsd.EUR, 0.8);
  t.is(eurBase.perUsd.USD, 1);
  t.throws(() => parseFxRates({ timestamp: 1, base: 'EUR', rates: { GBP: 1 } }), { instanceOf: FeedError });
  t.throws(() => parseFxRates({ base: 'USD' }), { instanceOf: FeedError });
});

test('feed URLs and cache headers', (t) => {
  t.is(metalUrl('https://api.gold-api.com/price', 'XAU'), 'https://api.gold-api.com/price/XAU');
  t.is(metalUrl('https://feed.example/v1/price/?key=k', 'XAG'), 'https://feed.example/v1/price/XAG?key=k');
  t.is(maxAgeMs('public, max-age=30'), 30_000);
  t.is(maxAgeMs('no-store'), 0);
  t.is(maxAgeMs('public'), undefined);
  t.is(maxAgeMs(null), undefined);
});

test('unit and karat math: troy ounce, tola, purity karat/24', (t) => {
  t.is(TROY_OUNCE_GRAMS, 31.1034768);
  t.is(TOLA_GRAMS, 11.6638);
  t.deepEqual(unitPrices(31.1034768), { pricePerOunce: 31.1035, pricePerGram: 1, pricePerTola: 11.6638 });
  const karats = karatBreakdown(2400);
  t.deepEqual(
    karats.map((k) => k.karat),
    [...KARATS],
  );
  t.deepEqual(
    karats.map((k) => k.purity),
    [1, 0.9167, 0.875, 0.8333, 0.75, 0.6667, 0.5833, 0.5, 0.4167],
  );
  t.is(karats.find((k) => k.karat === 18)!.pricePerOunce, 1800);
});

test('input schema: gold and USD by default, the 32 currencies exactly, example valid', (t) => {
  const input: Record<string, unknown> = {};
  t.true(schemas.input(input));
  t.deepEqual(input, { metal: 'gold', currency: 'USD' });
  const enumerated = (schemas.input.schema as { properties: { currency: { enum: string[] } } }).properties.currency.enum;
  t.deepEqual(enumerated, [...CURRENCIES]);
  t.false(schemas.input({ currency: 'XYZ' }));
  t.false(schemas.input({ metal: 'platinum' }));
  t.false(schemas.input({ currency: 'usd' }));
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output(structuredClone((schemas.output.schema as { examples: unknown[] }).examples[0])));
});

// ===== Integration: through HTTP against the running stack (npm test) =====
// The stack's feed fixture is shared by every test of this file, so these run one at a time.

const controlUrl = () => testEnv.goldFeedControlUrl();

test.serial('HTTP: gold in EUR answers 200 and costs 1 credit', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'gold-price', { metal: 'gold', currency: 'EUR' });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body), JSON.stringify(schemas.output.errors));
  t.like(res.body, { metal: 'gold', currency: 'EUR', pricePerOunce: round4(2400.5 * 0.92), asOfUtc: FIXTURE_AS_OF, stale: false });
  t.is(res.body.karats.length, 9);
  t.is(res.headers.get('x-credits-charged'), '1');
  t.is(await balanceOf(account), 9);
});

test.serial('HTTP: an unknown currency or metal is 400, not charged', async (t) => {
  const account = await newAccount(10);
  const res = await callTool(account.apiKey, 'gold-price', { metal: 'platinum', currency: 'XYZ' });
  t.true(isProblem(res, 400, 'validation_failed'));
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field).sort(), ['/currency', '/metal']);
  t.is(await balanceOf(account), 10);
});

test.serial('HTTP: with the feed down the last good quote is served, stale, and charged', async (t) => {
  const account = await newAccount(10);
  const fresh = await callTool(account.apiKey, 'gold-price', { currency: 'PKR' });
  t.is(fresh.status, 200);
  await setFeedMode(controlUrl(), 'down');
  try {
    await sleep(1_200); // the fixture's max-age is 1 s
    const stale = await callTool(account.apiKey, 'gold-price', { currency: 'PKR' });
    t.is(stale.status, 200, JSON.stringify(stale.body));
    t.deepEqual(stale.body, { ...fresh.body, stale: true });
    t.is(await balanceOf(account), 8);
  } finally {
    await setFeedMode(controlUrl(), 'up');
  }
});

test.serial('HTTP: no stored quote and the feed down is 502 and refunded', async (t) => {
  const account = await newAccount(10);
  const stackDb = client.db(new URL(process.env.MONGODB_URL!).pathname.slice(1) || 'utility_tools');
  await setFeedMode(controlUrl(), 'down');
  try {
    await stackDb.collection('market_quotes').deleteOne({ _id: 'metal:silver' as never });
    await sleep(1_200); // let any silver quote in the worker's memory expire
    const res = await callTool(account.apiKey, 'gold-price', { metal: 'silver' });
    t.true(isProblem(res, 502, 'upstream_error'), JSON.stringify(res.body));
    t.is(res.body.reason, 'feed_unavailable');
    t.is(await balanceOf(account), 10);
  } finally {
    await setFeedMode(controlUrl(), 'up');
  }
});
