//! A small in-process cache whose entries expire after their own lifetime (DNS answers for their
//! TTL, market quotes for the feed's max-age). Bounded, so a flood of distinct keys cannot grow
//! a worker's memory: past `maxEntries` the oldest insertion is dropped first.

export interface TtlCacheOptions {
  /**
   * Entries kept at most; the oldest is evicted first.
   * @default 10000. Each DNS answer is a few hundred bytes, so the default is a few MB at worst.
   */
  maxEntries?: number;
  /** Clock in milliseconds. @default Date.now. Tests pass their own to step time. */
  now?: () => number;
}

export interface TtlCache<V> {
  /** The value and its remaining lifetime while it is fresh, else undefined (the stale entry is dropped). */
  get(key: string): { value: V; remainingMs: number } | undefined;
  /** Keeps `value` for `ttlMs` milliseconds; a lifetime of 0 or less stores nothing. */
  set(key: string, value: V, ttlMs: number): void;
  readonly size: number;
}

export function createTtlCache<V>(options: TtlCacheOptions = {}): TtlCache<V> {
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order, which makes it a FIFO for eviction.
  const entries = new Map<string, { value: V; expiresAt: number }>();

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      const remainingMs = entry.expiresAt - now();
      if (remainingMs <= 0) {
        entries.delete(key);
        return undefined;
      }
      return { value: entry.value, remainingMs };
    },
    set(key, value, ttlMs) {
      entries.delete(key);
      if (!(ttlMs > 0)) return;
      entries.set(key, { value, expiresAt: now() + ttlMs });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    get size() {
      return entries.size;
    },
  };
}
