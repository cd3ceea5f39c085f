//! The render cache: images of capture tools (a tool with `image` in its definition) kept per
//! account, so a repeat within the age its caller accepts is answered with the stored bytes, free,
//! without a workflow or the ledger. The entry (`render_cache`) names the image, which lives in
//! the blob store's `render-cache` area, shared by every API replica; both are swept 30 days after
//! they were made. Keyed by the account, the tool and its validated input with defaults applied,
//! so two spellings of one input are one entry and two accounts never share one.
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { BlobStore } from '../lib/blob-store.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { collections } from '../lib/mongo.js';
import type { RenderCacheDoc } from './calls/index.js';

/** The longest age any request may accept, and how long a render is kept. */
export const MAX_RENDER_AGE_S = 30 * 24 * 60 * 60;
export const RENDER_CACHE_AREA = 'render-cache';
/** Images kept in this process by blob key (immutable), so a hot link is not read from the store each time. */
const MEMORY_BYTES = 64 * 1024 * 1024;
/**
 * A found entry is remembered this long, so a hot link costs no database read per request; a purge
 * or a fresh render made by another API instance is seen within it (a second at most, as a
 * retired secret is). Entries not found are not remembered: another instance's render counts at once.
 */
const ENTRY_MEMO_MS = 500;
/** Hits are counted in memory and added to the owner's days this often, not one write per hit. */
const HIT_FLUSH_MS = 1_000;
const MEMORY_MAX_IMAGE = 8 * 1024 * 1024;

/** A stored render, as a hit answers it. */
export interface StoredRender {
  entry: RenderCacheDoc;
  image: Buffer;
  /** Whole seconds since it was rendered. */
  ageS: number;
}

/** What a miss stores: the image and the rest of the tool's output. */
export interface NewRender {
  /** Its entry: renderCacheId of the account, the tool and the validated input. */
  id: string;
  accountId: string;
  tool: string;
  image: Buffer;
  mimeType: string;
  meta: Record<string, unknown>;
  cost: number;
}

export function renderCacheId(accountId: string, tool: string, input: Record<string, unknown>): string {
  const digest = createHash('sha256')
    .update(`${tool}\n${canonicalJson(input)}`)
    .digest('base64url');
  return `${accountId}:${digest}`;
}

/** A capture's output (its JSON, as a call answers it) split into the image and the rest. */
export function renderOfOutput(json: Buffer, field: string): Pick<NewRender, 'image' | 'mimeType' | 'meta'> {
  const { [field]: base64, ...meta } = JSON.parse(json.toString('utf8')) as Record<string, unknown>;
  return { image: Buffer.from(String(base64), 'base64'), mimeType: String(meta.mimeType), meta };
}

/** The UTC day (`yyyy-mm-dd`) hits of `at` are counted on. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** Bounded by bytes; the oldest insertion goes first (a Map keeps insertion order). */
function memoryOfImages(maxBytes: number) {
  const images = new Map<string, Buffer>();
  let held = 0;
  return {
    get: (key: string) => images.get(key),
    set(key: string, image: Buffer) {
      if (image.length > Math.min(MEMORY_MAX_IMAGE, maxBytes) || images.has(key)) return;
      images.set(key, image);
      held += image.length;
      for (const [k, v] of images) {
        if (held <= maxBytes) break;
        images.delete(k);
        held -= v.length;
      }
    },
  };
}

/**
 * `blobs`: the deployment's blob store (BLOB_STORE_URL); renders go to its `render-cache` area.
 * `memoryBytes`: images kept in this process for hits (default 64 MiB); 0 where no hit is answered.
 */
export function createRenderCache(deps: { db: Db; blobs: BlobStore; memoryBytes?: number }) {
  const { renderCache: entries, renderCacheDays: days } = collections(deps.db);
  const store = deps.blobs.area(RENDER_CACHE_AREA);
  const memory = memoryOfImages(deps.memoryBytes ?? MEMORY_BYTES);
  const memo = new Map<string, { entry: RenderCacheDoc; at: number }>();
  const pendingHits = new Map<string, { accountId: string; day: string; hits: number; creditsSaved: number }>();
  // biome-ignore lint/correctness/noUnusedVariables: read by its `??=` below, which Biome 2.6 does not count as a use
  let flushing: NodeJS.Timeout | undefined;

  async function entryOf(id: string): Promise<RenderCacheDoc | null> {
    const kept = memo.get(id);
    if (kept && Date.now() - kept.at < ENTRY_MEMO_MS) return kept.entry;
    const entry = await entries.findOne({ _id: id });
    if (memo.size > 10_000) memo.clear();
    if (entry) memo.set(id, { entry, at: Date.now() });
    else memo.delete(id);
    return entry;
  }

  async function flushHits(): Promise<void> {
    const batch = [...pendingHits.values()];
    pendingHits.clear();
    for (const { accountId, day, hits, creditsSaved } of batch) {
      await days.updateOne(
        { _id: `${accountId}:${day}` },
        { $setOnInsert: { accountId, day }, $inc: { hits, creditsSaved } },
        { upsert: true },
      );
    }
  }

  async function imageOf(entry: RenderCacheDoc): Promise<Buffer | undefined> {
    const kept = memory.get(entry.blobKey);
    if (kept) return kept;
    const image = await store.get(entry.blobKey);
    // Written whole or not at all: another length is not this entry's image.
    if (!image || image.length !== entry.bytes) return undefined;
    memory.set(entry.blobKey, image);
    return image;
  }

  return {
    /** The stored render under `id` (renderCacheId) if it is at most `maxAgeS` old, else undefined. */
    async lookup(id: string, maxAgeS: number, now = Date.now()): Promise<StoredRender | undefined> {
      const entry = await entryOf(id);
      if (!entry || entry.expiresAt.getTime() <= now) return undefined;
      const ageS = Math.max(0, Math.floor((now - entry.createdAt.getTime()) / 1000));
      if (ageS > maxAgeS) return undefined;
      const image = await imageOf(entry);
      return image ? { entry, image, ageS } : undefined;
    },

    /** Stores a fresh render in place of any older one of the same input. */
    async store(render: NewRender, now = new Date()): Promise<RenderCacheDoc> {
      const blobKey = await store.put(render.image);
      memory.set(blobKey, render.image);
      const entry: RenderCacheDoc = {
        _id: render.id,
        accountId: render.accountId,
        tool: render.tool,
        blobKey,
        bytes: render.image.length,
        digest: createHash('sha256').update(render.image).digest('base64url').slice(0, 32),
        mimeType: render.mimeType,
        meta: render.meta,
        cost: render.cost,
        createdAt: now,
        expiresAt: new Date(now.getTime() + MAX_RENDER_AGE_S * 1000),
      };
      await entries.replaceOne({ _id: entry._id }, entry, { upsert: true });
      memo.set(entry._id, { entry, at: Date.now() });
      return entry;
    },

    /**
     * Counts a hit for the owner's usage: the day's hits and the credits they did not cost, added
     * within HIT_FLUSH_MS (`onError` hears a batch that could not be). Never waits for the database.
     */
    countHit(entry: RenderCacheDoc, onError: (err: unknown) => void, now = new Date()): void {
      const day = dayOf(now);
      const key = `${entry.accountId}:${day}`;
      const pending = pendingHits.get(key) ?? { accountId: entry.accountId, day, hits: 0, creditsSaved: 0 };
      pending.hits += 1;
      pending.creditsSaved += entry.cost;
      pendingHits.set(key, pending);
      flushing ??= setTimeout(() => {
        flushing = undefined;
        flushHits().catch(onError);
      }, HIT_FLUSH_MS).unref();
    },

    /** The account's days with hits, newest first (at most `limit`), within `range` (UTC days, both ends included) when given. */
    days: (accountId: string, limit = 31, range: { from?: string; to?: string } = {}) =>
      days
        .find(
          {
            accountId,
            ...(range.from || range.to
              ? { day: { ...(range.from ? { $gte: range.from } : {}), ...(range.to ? { $lte: range.to } : {}) } }
              : {}),
          },
          { projection: { _id: 0, day: 1, hits: 1, creditsSaved: 1 } },
        )
        .sort({ day: -1 })
        .limit(limit)
        .toArray(),

    /** Empties the account's cache (seen by other API instances within ENTRY_MEMO_MS); the images go with the sweeps. Returns how many entries. */
    async purge(accountId: string): Promise<number> {
      for (const [id, { entry }] of memo) if (entry.accountId === accountId) memo.delete(id);
      return (await entries.deleteMany({ accountId })).deletedCount;
    },

    /** Drops entries and images past MAX_RENDER_AGE_S (the sweeper). */
    async sweep(now = Date.now()): Promise<{ entries: number; images: number }> {
      const cutoff = new Date(now - MAX_RENDER_AGE_S * 1000);
      for (const [id, { entry }] of memo) if (entry.expiresAt.getTime() <= now) memo.delete(id);
      return {
        entries: (await entries.deleteMany({ expiresAt: { $lt: new Date(now) } })).deletedCount,
        images: await store.sweep(cutoff),
      };
    },
  };
}

export type RenderCache = ReturnType<typeof createRenderCache>;
