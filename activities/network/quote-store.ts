//! gold-price's last good feed answers in MongoDB, one document per source, so a worker that
//! starts while the feed is down (or any worker, once its memory cache has expired) can still
//! answer with `stale: true`. One upsert per fresh fetch: at most one per source per cache period.
import type { Db } from 'mongodb';
import { collections } from '../../lib/mongo.js';

export interface QuoteStore {
  save(source: string, value: object): Promise<void>;
  load<T>(source: string): Promise<T | undefined>;
}

export function createQuoteStore(db: Db): QuoteStore {
  const { marketQuotes } = collections(db);
  return {
    async save(source, value) {
      await marketQuotes.replaceOne({ _id: source }, { value: value as Record<string, unknown>, savedAt: new Date() }, { upsert: true });
    },
    async load<T>(source: string) {
      const doc = await marketQuotes.findOne({ _id: source });
      return doc ? (doc.value as T) : undefined;
    },
  };
}
