//! The proof runs' batches (chaos and soak): made over the API with an account's key, read through
//! whatever fault is under way, and waited for (bounded) before the ledger audit judges them.
import { findTool } from '../../../domain/catalogue.js';

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
    body: JSON.stringify({ tool: BATCH_TOOL.name, items: Array.from({ length: items }, (_, i) => ({ text: `${idempotencyKey} item ${i}` })) }),
  });
  if (res.status !== 202) throw new Error(`POST /api/v1/batches (${idempotencyKey}): ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** The batch's counts as the API answers them now, or what kept it from answering (a fault). */
export async function batchCounts(apiUrl: string, apiKey: string, id: string): Promise<string> {
  const res = await fetch(`${apiUrl}/api/v1/batches/${id}`, { headers: { authorization: `Bearer ${apiKey}` } }).catch(() => undefined);
  return res?.ok ? JSON.stringify(((await res.json()) as { counts: unknown }).counts) : `no answer (${res?.status ?? 'no connection'})`;
}

/** Waits (bounded) until the batch ended, asking again through whatever is still coming back. */
export async function batchEnded(apiUrl: string, apiKey: string, id: string, log: (line: string) => void): Promise<void> {
  const giveUpAt = Date.now() + BATCH_END_TIMEOUT_MS;
  while (Date.now() < giveUpAt) {
    const res = await fetch(`${apiUrl}/api/v1/batches/${id}`, { headers: { authorization: `Bearer ${apiKey}` } }).catch(() => undefined);
    const batch = res?.ok ? ((await res.json()) as { completedAt: string | null; counts: unknown }) : undefined;
    if (batch?.completedAt) {
      log(`batch ${id} ended: ${JSON.stringify(batch.counts)}`);
      return;
    }
    await sleep(1_000);
  }
  log(`batch ${id} had not ended ${BATCH_END_TIMEOUT_MS / 1000} s after the calls`);
}
