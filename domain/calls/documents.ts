//! The documents calls leave behind: idempotency records, call keys, asynchronous calls, batches
//! and their items, the render cache.
import type { Collection, ObjectId } from 'mongodb';
import type { BatchCounts } from './batch-counts.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    idempotency: Collection<IdempotencyDoc>;
    callKeys: Collection<CallKeyDoc>;
    calls: Collection<CallDoc>;
    batches: Collection<BatchDoc>;
    batchItems: Collection<BatchItemDoc>;
    renderCache: Collection<RenderCacheDoc>;
    renderCacheDays: Collection<RenderCacheDayDoc>;
    rateBuckets: Collection<RateBucketDoc>;
  }
}

/**
 * A request rate's bucket (domain/rate-buckets.ts), `_id` what it limits (an account, a key, a
 * client address): `tat` the time (epoch ms) it would next be full, `ok` whether the last take was allowed.
 */
export interface RateBucketDoc {
  _id: string;
  tat: number;
  ok: boolean;
}

export interface IdempotencyDoc {
  /** `<accountId>:<sha256(key)>` */
  _id: string;
  accountId: string;
  /** HMAC of tool and body: a repeat must match it. */
  fingerprint: string;
  workflowId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface CallKeyDoc {
  /** The call's request id. */
  _id: string;
  key: Buffer | { buffer: Uint8Array };
  expiresAt: Date;
}

/** An asynchronous tool call (`Prefer: respond-async`) and, once it ended, its answer, kept 24 h. */
export interface CallDoc {
  /** The call's request id (its workflow id). */
  _id: string;
  accountId: string;
  tool: string;
  status: 'running' | 'succeeded' | 'failed';
  createdAt: Date;
  completedAt: Date | null;
  /** completedAt + 24 h: the answer is served until then, `call_expired` after. */
  expiresAt: Date | null;
  /** Credits charged: the cost when it succeeded, else 0. */
  charged: number;
  /** The tool's output as JSON text, when small enough to keep in the document. */
  output?: string;
  /** The output in GridFS (bucket `call_outputs`) when it is larger. */
  outputFileId?: ObjectId;
  /** A failed call's problem: the same code, detail and members a synchronous call answers. */
  problem?: { code: string; detail: string; extras: Record<string, unknown> };
  /** Set by the sweeper once the answer was dropped. */
  expired?: boolean;
}

/** A batch (`POST /api/v1/batches`): its items are `batch_items`, run by the account's batch runner. */
export interface BatchDoc {
  /** `bat_...`. */
  _id: string;
  accountId: string;
  tool: string;
  /** The tool's cost per item when the batch was made. */
  cost: number;
  status: 'running' | 'paused' | 'completed' | 'cancelled';
  total: number;
  /** Items handed to the runner so far, in index order: items from `next` on are still pending. */
  next: number;
  /**
   * The counts once the batch completed, counted from its items (`noCounts` until then): while it
   * runs they are counted from the items at each read (domain/batches/progress.ts), never moved here.
   */
  counts: BatchCounts;
  /** Credits charged: the cost of each item that succeeded, set with `counts`. */
  charged: number;
  /**
   * Every item below `below` has ended (which is final), and these are their counts: kept by the
   * reads of a running batch's counts so each read counts only the items above (domain/batches/progress.ts).
   */
  settled?: { below: number; succeeded: number; failed: number; skipped: number };
  onInsufficientCredits: 'stop' | 'wait';
  /** The destination (`dst_...`) each item's file goes to, when the batch names one. */
  destination?: string;
  /** Why pending items are skipped rather than run: the batch was cancelled, or credits ran short under `stop`. */
  stopped?: 'cancelled' | 'insufficient_credits';
  /** When a `wait` batch paused for credits; it gives up (as `stop`) 7 days later. */
  pausedAt?: Date | null;
  createdAt: Date;
  completedAt: Date | null;
  /** The W3C traceparent of the request that made it, when traced: its items' calls are children of it. */
  traceparent?: string;
}

/** One item of a batch: its input until it ran, then its outcome. `_id` is `<batchId>:<index>`. */
export interface BatchItemDoc {
  _id: string;
  batchId: string;
  accountId: string;
  index: number;
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';
  /** Starts of the item so far: a `wait` batch runs an item again (a new call) after a pause for credits. */
  attempt: number;
  /** Set once a call of the item ended and recorded it: its outcome is final. */
  callEnded?: boolean;
  /** Validated input with defaults applied, secret fields removed; dropped once the item ended. */
  input?: Record<string, unknown>;
  /** The tool's secret fields, sealed with SECRET_KEY (lib/sealed.ts); dropped once the item ended. */
  sealed?: string;
  /** The item's call (its workflow id), once it started. */
  requestId?: string;
  /** A succeeded item's output, as the call carries it (small, or a stored output's reference). */
  output?: unknown;
  /** A failed or skipped item's problem: what the call answered, or why it never ran. */
  problem?: { code: string; detail: string; extras: Record<string, unknown> };
  /** Credits charged for the item: the cost when it succeeded, else 0. */
  charged?: number;
  endedAt?: Date;
  /**
   * The index of the item that took this item's slot when it ended (claimed before this item was
   * marked ended, so the slot is never seen free): a retried end starts that one, not another.
   */
  successor?: number;
}

/**
 * One stored render of the render cache: `_id` is the account and a digest of the tool and its
 * validated input, so two accounts never share an entry. The image is in the blob store.
 */
export interface RenderCacheDoc {
  _id: string;
  accountId: string;
  tool: string;
  /** The image in the blob store's render area (lib/blob-store.ts `area`). */
  blobKey: string;
  bytes: number;
  /** Digest of the image (base64url), the ETag's value. */
  digest: string;
  mimeType: string;
  /** The rest of the tool's output (all but the image field), for a POST's answer. */
  meta: Record<string, unknown>;
  /** Credits the render was charged: what each hit saves. */
  cost: number;
  createdAt: Date;
  /** createdAt + the longest age any request may accept (30 days): swept after. */
  expiresAt: Date;
}

/** A day of one account's render cache hits (`<accountId>:<yyyy-mm-dd>`). */
export interface RenderCacheDayDoc {
  _id: string;
  accountId: string;
  day: string;
  hits: number;
  creditsSaved: number;
}
