//! One market data source as gold-price reads it: fresh from memory while the provider's
//! max-age lasts (at most `maxCacheMs`), else fetched (one request at a time per source, however
//! many calls wait), else, when the feed fails, the last good value from the store, marked stale.
import { FeedError, type Fetched } from './market-feeds.js';
import type { QuoteStore } from './quote-store.js';
import { createTtlCache } from './ttl-cache.js';

export interface Sourced<T> {
  value: T;
  /** True when the feed failed and the stored last good value was served. */
  stale: boolean;
}

export interface QuoteSourceOptions<T> {
  /** Store key, e.g. `metal:gold` or `fx`. */
  key: string;
  /** Bounded by its own deadline: a fetch is shared by every waiting call, so no caller's signal ends it. */
  fetch(): Promise<Fetched<T>>;
  store: QuoteStore;
  /**
   * Longest a quote is served from memory, whatever the provider allows. @default 60000 (at most 60 s,
   * docs/API.md). The provider's own max-age shortens it.
   */
  maxCacheMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export interface QuoteSource<T> {
  /** Resolves to the value, or rejects with the FeedError when there is neither a fresh nor a stored one. */
  get(): Promise<Sourced<T>>;
}

export function createQuoteSource<T extends object>(options: QuoteSourceOptions<T>): QuoteSource<T> {
  const maxCacheMs = options.maxCacheMs ?? 60_000;
  const cache = createTtlCache<Sourced<T>>({ maxEntries: 1, now: options.now });
  let inFlight: Promise<Sourced<T>> | undefined;
  /** How long the provider last let a value be reused: also how long a failure is not retried. */
  let lastLifetimeMs = maxCacheMs;

  async function refresh(): Promise<Sourced<T>> {
    try {
      const fetched = await options.fetch();
      lastLifetimeMs = Math.min(maxCacheMs, fetched.maxAgeMs ?? maxCacheMs);
      const fresh = { value: fetched.value, stale: false };
      cache.set(options.key, fresh, lastLifetimeMs);
      // A quote that cannot be stored is still a good answer; the next fetch stores it again.
      await options.store.save(options.key, fetched.value).catch(() => {});
      return fresh;
    } catch (err) {
      if (!(err instanceof FeedError)) throw err;
      const stored = await options.store.load<T>(options.key);
      if (!stored) throw err;
      const stale = { value: stored, stale: true };
      // Do not ask a failing feed again on every call: once per the provider's own cache period.
      cache.set(options.key, stale, lastLifetimeMs);
      return stale;
    }
  }

  return {
    async get() {
      const hit = cache.get(options.key);
      if (hit) return hit.value;
      inFlight ??= refresh().finally(() => (inFlight = undefined));
      return inFlight;
    },
  };
}
