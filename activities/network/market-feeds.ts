//! The two market data feeds behind gold-price, in their providers' documented JSON formats:
//!
//! - Metals, `GOLD_FEED_URL`: gold-api.com's price endpoint. The metal symbol is appended as a
//!   path segment (`<GOLD_FEED_URL>/XAU`, `/XAG`); the answer is
//!   `{ "name": "Gold", "price": 2400.5, "symbol": "XAU", "currency": "USD", "updatedAt": "<ISO 8601>", ... }`,
//!   the price per troy ounce in US dollars. Production value: `https://api.gold-api.com/price`.
//! - Currencies, `FX_FEED_URL`: Open Exchange Rates' `latest.json`, used as given (the URL carries
//!   the `app_id`): `{ "timestamp": <unix seconds>, "base": "USD", "rates": { "EUR": 0.92, ... } }`,
//!   units of each currency per one unit of `base`. Any base works: rates are re-based on USD.
//!
//! The feeds are operator configuration, not user input, so they are fetched directly (they may
//! sit on a private network), with a deadline and a size cap. Parsers are pure and exported.

import { CURRENCIES, type Currency, type Metal } from '../../domain/tools/gold-price.js';
import { ConfigError } from '../../lib/config.js';

export const METAL_SYMBOLS = { gold: 'XAU', silver: 'XAG' } as const satisfies Record<Metal, string>;

export interface MetalQuote {
  /** Spot price of one troy ounce in US dollars. */
  usdPerOunce: number;
  /** When the provider published it, ISO 8601 UTC. */
  asOfUtc: string;
}

export interface FxRates {
  /** Units of each supported currency per US dollar (USD itself is 1). */
  perUsd: Partial<Record<Currency, number>>;
  asOfUtc: string;
}

/** The feed answered, but not with something usable; or could not be reached. */
export class FeedError extends Error {
  override readonly name = 'FeedError';
}

/** A fetched value and how long the provider lets it be reused. */
export interface Fetched<T> {
  value: T;
  /** From `Cache-Control: max-age`; undefined when the provider says nothing. */
  maxAgeMs?: number;
}

const isPositive = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;

export function parseMetalQuote(body: unknown, symbol: string): MetalQuote {
  const doc = body as { price?: unknown; symbol?: unknown; currency?: unknown; updatedAt?: unknown };
  if (!doc || typeof doc !== 'object') throw new FeedError('metal feed: not a JSON object');
  if (doc.symbol !== symbol) throw new FeedError(`metal feed: expected symbol ${symbol}, got ${String(doc.symbol)}`);
  // Prices in other currencies are this service's job, from the FX feed, so one rate source applies.
  if (doc.currency !== undefined && doc.currency !== 'USD')
    throw new FeedError(`metal feed: expected USD prices, got ${String(doc.currency)}`);
  if (!isPositive(doc.price)) throw new FeedError('metal feed: price is not a positive number');
  const asOf = typeof doc.updatedAt === 'string' ? Date.parse(doc.updatedAt) : NaN;
  if (Number.isNaN(asOf)) throw new FeedError('metal feed: updatedAt is not a date');
  return { usdPerOunce: doc.price, asOfUtc: new Date(asOf).toISOString() };
}

export function parseFxRates(body: unknown): FxRates {
  const doc = body as { base?: unknown; rates?: unknown; timestamp?: unknown };
  if (!doc || typeof doc !== 'object' || !doc.rates || typeof doc.rates !== 'object') throw new FeedError('fx feed: no rates object');
  const rates = doc.rates as Record<string, unknown>;
  const base = typeof doc.base === 'string' ? doc.base : 'USD';
  const usdInBase = base === 'USD' ? 1 : rates.USD;
  if (!isPositive(usdInBase)) throw new FeedError(`fx feed: base ${base} without a USD rate`);
  if (typeof doc.timestamp !== 'number' || !Number.isFinite(doc.timestamp)) throw new FeedError('fx feed: timestamp is not a number');
  const perUsd: FxRates['perUsd'] = {};
  for (const currency of CURRENCIES) {
    const rate = currency === base ? 1 : rates[currency];
    if (isPositive(rate)) perUsd[currency] = rate / usdInBase;
  }
  perUsd.USD = 1;
  return { perUsd, asOfUtc: new Date(doc.timestamp * 1000).toISOString() };
}

/** `max-age` of a Cache-Control header, in milliseconds (`no-store` / `no-cache`: 0). */
export function maxAgeMs(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined;
  if (/(?:^|,)\s*no-(?:store|cache)\b/i.test(cacheControl)) return 0;
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return m ? Number(m[1]) * 1000 : undefined;
}

export interface MarketFeedsOptions {
  goldFeedUrl?: string;
  fxFeedUrl?: string;
  /**
   * Deadline of one feed request, milliseconds. @default 5000: past it the last stored quote is
   * served (`stale: true`), so a slow provider costs a caller at most this.
   */
  timeoutMs?: number;
  /** @default 1 MiB: a feed answer is a few KB. */
  maxBytes?: number;
}

export interface MarketFeeds {
  metal(metal: Metal, signal?: AbortSignal): Promise<Fetched<MetalQuote>>;
  fx(signal?: AbortSignal): Promise<Fetched<FxRates>>;
}

/** `<base>/<symbol>`, keeping the base's query string (where a provider wants its key). */
export function metalUrl(base: string, symbol: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${symbol}`;
  return url.href;
}

export function createMarketFeeds(options: MarketFeedsOptions): MarketFeeds {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  // A malformed URL is a configuration mistake: stop the worker at start, not at the first call.
  for (const [name, url] of [
    ['GOLD_FEED_URL', options.goldFeedUrl],
    ['FX_FEED_URL', options.fxFeedUrl],
  ] as const) {
    if (url && !URL.canParse(url)) throw new ConfigError(`${name} is not a valid URL`);
  }

  async function getJson(url: string | undefined, what: string, signal?: AbortSignal): Promise<{ body: unknown; maxAgeMs?: number }> {
    if (!url) throw new FeedError(`${what} feed is not configured`);
    const deadline = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, {
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        headers: { accept: 'application/json' },
        redirect: 'error',
      });
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new FeedError(`${what} feed answered HTTP ${res.status}`);
      }
      const text = await readCapped(res, maxBytes);
      return { body: JSON.parse(text), maxAgeMs: maxAgeMs(res.headers.get('cache-control')) };
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof FeedError) throw err;
      throw new FeedError(`${what} feed unusable: ${deadline.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message}`, {
        cause: err,
      });
    }
  }

  return {
    async metal(metal, signal) {
      const symbol = METAL_SYMBOLS[metal];
      const { body, maxAgeMs } = await getJson(options.goldFeedUrl && metalUrl(options.goldFeedUrl, symbol), 'metal', signal);
      return { value: parseMetalQuote(body, symbol), maxAgeMs };
    },
    async fx(signal) {
      const { body, maxAgeMs } = await getJson(options.fxFeedUrl, 'fx', signal);
      return { value: parseFxRates(body), maxAgeMs };
    },
  };
}

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of (res.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw new FeedError(`answer larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
