//! gold-price's last good feed answers (quote-store.ts), served when a feed is down.
import type { Collection } from 'mongodb';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    marketQuotes: Collection<MarketQuoteDoc>;
  }
}

/** gold-price's last good feed answer per source (`metal:gold`, `metal:silver`, `fx`), served when the feed is down. */
export interface MarketQuoteDoc {
  _id: string;
  value: Record<string, unknown>;
  savedAt: Date;
}
