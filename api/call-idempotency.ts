//! Idempotency keys of tool calls: a key names one call per account for 24 hours, the call's
//! fingerprint (an HMAC of its tool and body) tells a repeat from a conflicting reuse.
import { createHmac } from 'node:crypto';
import type { Db } from 'mongodb';
import { canonicalJson } from '../lib/canonical-json.js';
import { randomBase62, sha256Hex } from '../lib/ids.js';
import { collections, insertIfAbsent } from '../lib/mongo.js';
import { ServiceError } from '../contracts/errors.js';
import type { CallRequest } from './call-request.js';

/** Idempotency keys are remembered this long, per account (docs/API.md). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

/** An idempotency record's id: the key is kept only as its hash, per account. */
function idempotencyId(accountId: string, keyHash: string): string {
  return `${accountId}:${keyHash}`;
}

export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_SHAPE.test(header)) {
    throw new ServiceError('validation_failed', 'Idempotency-Key must be 1 to 255 printable characters.', {
      errors: [{ field: 'header:Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return header;
}

/** What a key is claimed for: a call, or a batch named as a tool of its own. */
export type IdempotentRequest = Pick<CallRequest, 'accountId' | 'input' | 'idempotencyKey' | 'destination'> & { tool: { name: string } };

export function createIdempotency(deps: { db: Db; secretKey: Buffer }) {
  const { idempotency } = collections(deps.db);

  /**
   * The fingerprint of a call for idempotency: keyed (HMAC), so the stored value reveals
   * nothing of the body, which may hold a password. A destination is part of it (a repeat that
   * names another bucket is another call); a call without one keeps the fingerprint it always had.
   */
  function fingerprint(tool: string, input: Record<string, unknown>, destination?: string): string {
    const text = `${tool}\n${canonicalJson(input)}${destination ? `\n${destination}` : ''}`;
    return createHmac('sha256', deps.secretKey).update(text).digest('hex');
  }

  /**
   * The workflow id of the call, and whether an earlier request with the same key exists. A batch
   * claims its key the same way, under a name of its own (`batch:<tool>`), and takes its id from it.
   */
  async function claim(req: IdempotentRequest): Promise<{ workflowId: string; replayed: boolean }> {
    if (!req.idempotencyKey) return { workflowId: `call-${req.accountId}-${randomBase62(20)}`, replayed: false };
    const keyHash = sha256Hex(req.idempotencyKey);
    const workflowId = `call-${req.accountId}-idem-${keyHash.slice(0, 32)}`;
    const now = new Date();
    const doc = {
      _id: idempotencyId(req.accountId, keyHash),
      accountId: req.accountId,
      fingerprint: fingerprint(req.tool.name, req.input, req.destination),
      workflowId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    };
    if (await insertIfAbsent(idempotency, doc)) return { workflowId, replayed: false };
    const earlier = await idempotency.findOne({ _id: doc._id });
    if (earlier && earlier.expiresAt > now) {
      if (earlier.fingerprint !== doc.fingerprint) {
        throw new ServiceError('idempotency_conflict', 'This Idempotency-Key was used with another tool or body.');
      }
      return { workflowId: earlier.workflowId, replayed: true };
    }
    // Expired but not yet swept: the key starts a new call.
    const fresh = { ...doc, workflowId: `${workflowId}-${randomBase62(8)}` };
    await idempotency.replaceOne({ _id: doc._id }, fresh, { upsert: true });
    return { workflowId: fresh.workflowId, replayed: false };
  }

  /** Gives an idempotency key back when its call never started (an asynchronous 402). */
  async function release(req: IdempotentRequest, workflowId: string): Promise<void> {
    if (req.idempotencyKey) await idempotency.deleteOne({ _id: idempotencyId(req.accountId, sha256Hex(req.idempotencyKey)), workflowId });
  }

  return { fingerprint, claim, release };
}
