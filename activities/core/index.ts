//! Activities of the core pool: the ledger steps of a call, the end of its key, the sweeper.
import type { Db } from 'mongodb';
import { createLedger, type CallRef } from './ledger.js';
import { createCallKeys } from './call-keys.js';
import { createSweeper } from './sweeper.js';

export function createCoreActivities(db: Db) {
  const ledger = createLedger(db);
  const callKeys = createCallKeys(db);
  const sweeper = createSweeper(db);
  return {
    reserve: (call: CallRef) => ledger.reserve(call),
    commit: (call: CallRef) => ledger.commit(call),
    refund: (call: CallRef) => ledger.refund(call),
    destroyCallKey: (requestId: string) => callKeys.destroy(requestId),
    sweep: () => sweeper.sweep(),
  };
}

export type CoreActivities = ReturnType<typeof createCoreActivities>;
