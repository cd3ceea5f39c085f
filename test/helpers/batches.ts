//! Batches as the tests drive them through HTTP: start one, read it, wait for its end, read its items.
import { request, type Answer, type TestAccount, type UncheckedJson } from './api.js';
import { eventually } from './webhook-receiver.js';

/** BATCH_CONCURRENCY of the test stack (scripts/stack/test-stack.ts). */
export const BATCH_CONCURRENCY = 4;

export const postBatch = (account: TestAccount, body: unknown, headers: Record<string, string> = {}) =>
  request('POST', '/api/v1/batches', { token: account.apiKey, body, headers });
export const getAs = (account: TestAccount, path: string) => request('GET', path, { token: account.apiKey });
export const batchOf = (account: TestAccount, id: string) => getAs(account, `/api/v1/batches/${id}`);
/** Reads the batch until its last item ended. */
export const ended = (account: TestAccount, id: string) =>
  eventually(
    () => batchOf(account, id),
    (res) => res.status !== 200 || res.body.completedAt !== null,
    90_000,
    `batch ${id} to end`,
  );

/** Every item, page by page. */
export async function allItems(account: TestAccount, id: string, query = ''): Promise<UncheckedJson[]> {
  const items: UncheckedJson[] = [];
  let cursor: string | null = null;
  do {
    const res: Answer<{ items: UncheckedJson[]; nextCursor: string | null }> = await getAs(
      account,
      `/api/v1/batches/${id}/items?limit=7${query}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    if (res.status !== 200) throw new Error(`items: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}
