//! The last step of an asynchronous call (workflows/async-call.ts): its render kept in the render
//! cache when it is a capture asked for with `Cache-Control` and it succeeded, then its outcome
//! recorded (domain/calls/async-calls.ts). The render goes first, so a client that reads the call as
//! succeeded finds the render stored. The cache is a help, never a failure: a render that cannot
//! be kept is logged and the outcome recorded all the same.
import { Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import { createAsyncCalls, type CallOutcome } from '../domain/calls/index.js';
import { findTool } from '../domain/tools/index.js';
import type { EventSink } from '../domain/events/index.js';
import { createRenderCache, renderOfOutput } from '../domain/render-cache.js';
import type { BlobStore } from '../lib/blob-store.js';
import { isOutputBlob, storedJson } from '../lib/output-blobs.js';

export function createCallOutcomes(deps: { db: Db; blobs: BlobStore; onEvent?: EventSink }) {
  const asyncCalls = createAsyncCalls(deps.db, deps.onEvent);
  // A worker only writes renders: it keeps no images in memory for hits it never answers.
  const cache = createRenderCache({ db: deps.db, blobs: deps.blobs, memoryBytes: 0 });

  async function keepRender(outcome: CallOutcome & { cacheAs: string }): Promise<void> {
    const { result } = outcome;
    const field = findTool(outcome.tool)?.image?.field;
    // The entry is named by the API for this account; anything else is not stored.
    if (!result.ok || !field || !outcome.cacheAs.startsWith(`${outcome.accountId}:`)) return;
    const json = isOutputBlob(result.output)
      ? await storedJson(deps.blobs, result.output)
      : Buffer.from(JSON.stringify(result.output), 'utf8');
    await cache.store({
      id: outcome.cacheAs,
      accountId: outcome.accountId,
      tool: outcome.tool,
      ...renderOfOutput(json, field),
      cost: result.charged,
    });
  }

  return {
    async recordCallOutcome(outcome: CallOutcome): Promise<void> {
      if (outcome.cacheAs) {
        await keepRender({ ...outcome, cacheAs: outcome.cacheAs }).catch((err: unknown) => {
          Context.current().log.warn('A render could not be kept in the render cache', {
            tool: outcome.tool,
            requestId: outcome.requestId,
            error: err,
          });
        });
      }
      await asyncCalls.finish(outcome);
    },
  };
}
