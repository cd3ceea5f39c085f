//! Calls their clients cancelled, as the step running the tool can see them. A cancelled workflow
//! hears of it at its next workflow task, and a call's tool runs as one local activity holding the
//! task open (heartbeated every 8 s), so the step itself looks here while a cancellable call runs
//! and stops its tool at once (activities/call-step.ts). Written after the workflow's cancellation,
//! which the workflow then meets and ends on. Expiry without TTL indexes: the sweeper removes them.
import type { Collection, Db } from 'mongodb';
import { collections, insertIfAbsent } from '../../lib/mongo.js';

declare module '../../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    callCancellations: Collection<CallCancellationDoc>;
  }
}

export interface CallCancellationDoc {
  /** The call's workflow id. */
  _id: string;
  expiresAt: Date;
}

/** A mark outlives any call it could stop (the longest tool's deadline and the ledger's allowance). */
const KEPT_MS = 10 * 60_000;

export function createCallCancellations(db: Db) {
  const { callCancellations } = collections(db);
  return {
    /** Marks the call `workflowId` cancelled by its client. */
    async mark(workflowId: string, now = Date.now()): Promise<void> {
      await insertIfAbsent(callCancellations, { _id: workflowId, expiresAt: new Date(now + KEPT_MS) });
    },

    /** Whether the call's client cancelled it. */
    async isMarked(workflowId: string): Promise<boolean> {
      return (await callCancellations.findOne({ _id: workflowId }, { projection: { _id: 1 } })) !== null;
    },

    /** Removes marks past their end. */
    async sweep(now = Date.now()): Promise<number> {
      return (await callCancellations.deleteMany({ expiresAt: { $lt: new Date(now) } })).deletedCount;
    },
  };
}

export type CallCancellations = ReturnType<typeof createCallCancellations>;
