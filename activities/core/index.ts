//! Activities of the core pool: the ledger steps of a call and the end of its key.
import type { Db } from 'mongodb';
import { createLedger, type CallRef } from './ledger.js';
import { createCallKeys } from './call-keys.js';

export function createCoreActivities(db: Db) {
  const ledger = createLedger(db);
  const callKeys = createCallKeys(db);
  return {
    reserve: (call: CallRef) => ledger.reserve(call),
    commit: (call: CallRef) => ledger.commit(call),
    refund: (call: CallRef) => ledger.refund(call),
    destroyCallKey: (requestId: string) => callKeys.destroy(requestId),
  };
}

export type CoreActivities = ReturnType<typeof createCoreActivities>;
