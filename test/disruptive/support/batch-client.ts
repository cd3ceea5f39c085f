//! The proof runs' batches (chaos and soak): made over the API with an account's key, read through
//! whatever fault is under way (each live read's counts checked), and waited for (bounded) before
//! the ledger audit judges them.
import { findTool } from '../../../domain/tools/catalogue.js';

/** The batches' tool: cheap, so its items are many calls through the faults. */
export const BATCH_TOOL = findTool('hash-text')!;
/** How long a batch may take to end once the calls are over. */
const BATCH_END_TIMEOUT_MS = 300_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes a batch of `items` hash-text items (the same `idempotencyKey` makes it once), answering its id. */
export async function startBatch(apiUrl: string, apiKey: string, items: number, idempotencyKey: string): Promise<string> {
  const res = await fetch(`${apiUrl}/api/v1/batches`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({
      tool: BATCH_TOOL.name,
      items: Array.from({ length: items }, (_, i) => ({ text: `${idempotencyKey} item ${i}` })),
    }),
  });
  if (res.status !== 202) throw new Error(`POST /api/v1/batches (${idempotencyKey}): ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** BATCH_CONCURRENCY of the stack: no live read of a batch may show more items running. */
const BATCH_CONCURRENCY = Number(process.env.BATCH_CONCURRENCY ?? 4);

type LiveBatch = {
  total: number;
  completedAt: string | null;
  counts: Record<'pending' | 'running' | 'succeeded' | 'failed' | 'skipped', number>;
};

/** What is wrong with a live read of a batch's counts: they must add up to its total, none negative, running within the bound. */
function liveCountsWrong(id: string, batch: LiveBatch): string | undefined {
  const c = batch.counts;
  const sum = c.pending + c.running + c.succeeded + c.failed + c.skipped;
  if (sum === batch.total && Object.values(c).every((n) => n >= 0) && c.running <= BATCH_CONCURRENCY) return undefined;
  return `batch ${id}: a live read of its counts: ${JSON.stringify(c)} (total ${batch.total}, BATCH_CONCURRENCY ${BATCH_CONCURRENCY})`;
}

/** Reads the batch as the API answers it now, noting in `wrong` a read whose counts are wrong. */
async function readBatch(apiUrl: string, apiKey: string, id: string, wrong?: string[]): Promise<{ batch?: LiveBatch; status?: number }> {
  const res = await fetch(`${apiUrl}/api/v1/batches/${id}`, { headers: { authorization: `Bearer ${apiKey}` } }).catch(() => undefined);
  if (!res?.ok) return { status: res?.status };
  const batch = (await res.json()) as LiveBatch;
  const problem = liveCountsWrong(id, batch);
  if (problem) wrong?.push(problem);
  return { batch };
}

/** The batch's counts as the API answers them now, or what kept it from answering (a fault). */
export async function batchCounts(apiUrl: string, apiKey: string, id: string, wrong?: string[]): Promise<string> {
  const { batch, status } = await readBatch(apiUrl, apiKey, id, wrong);
  return batch ? JSON.stringify(batch.counts) : `no answer (${status ?? 'no connection'})`;
}

/**
 * Reads the batch twice a second until it ended or `done()`, noting in `wrong` each read whose
 * counts are wrong (they read 10, 18 and -2 running under faults while they were moved beside the items).
 */
export async function followBatch(apiUrl: string, apiKey: string, id: string, done: () => boolean, wrong: string[]): Promise<void> {
  while (!done()) {
    if ((await readBatch(apiUrl, apiKey, id, wrong)).batch?.completedAt) return;
    await sleep(500);
  }
}

/** Waits (bounded) until the batch ended, asking again through whatever is still coming back. */
export async function batchEnded(apiUrl: string, apiKey: string, id: string, log: (line: string) => void, wrong?: string[]): Promise<void> {
  const giveUpAt = Date.now() + BATCH_END_TIMEOUT_MS;
  while (Date.now() < giveUpAt) {
    const { batch } = await readBatch(apiUrl, apiKey, id, wrong);
    if (batch?.completedAt) {
      log(`batch ${id} ended: ${JSON.stringify(batch.counts)}`);
      return;
    }
    await sleep(1_000);
  }
  log(`batch ${id} had not ended ${BATCH_END_TIMEOUT_MS / 1000} s after the calls`);
}
