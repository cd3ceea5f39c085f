//! Batches: `client.batches.create({ tool, items })` makes one (under an Idempotency-Key, so a
//! retry makes it once) and answers a handle: `progress()` reads its counts, `results()` yields
//! each finished item as it finishes (the NDJSON stream), `items()` pages through them, `cancel()`.
import type { components } from './api-types.js';
import type { RetryOptions, Transport } from './http.js';
import { newKey, type ToolInput, type ToolName } from './tools.js';

export type Batch = components['schemas']['Batch'];
export type BatchPage = components['schemas']['BatchPage'];
export type BatchItem = components['schemas']['BatchItem'];
export type BatchItemPage = components['schemas']['BatchItemPage'];

/** A batch of one tool: every item is merged over `defaults` and must then be a whole input of the tool. */
export interface NewBatch<T extends ToolName> {
  tool: T;
  items: Partial<ToolInput<T>>[];
  defaults?: Partial<ToolInput<T>>;
  /** `stop` (default): the rest is skipped when credits run short; `wait`: pause until credits are granted. */
  onInsufficientCredits?: 'stop' | 'wait';
}

export interface BatchOptions {
  /** Makes `create` safe to repeat across processes; a fresh random key otherwise. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  retry?: RetryOptions;
}

export interface BatchItemQuery {
  status?: BatchItem['status'];
  limit?: number;
  cursor?: string;
}

export interface BatchHandle {
  readonly id: string;
  /** The batch as `create` (or `get`) first answered it. */
  readonly created: Batch;
  /** The batch now: its status and counts. */
  progress(options?: { signal?: AbortSignal }): Promise<Batch>;
  /** Each finished item (succeeded, failed or skipped) as it finishes, until the batch has ended. */
  results(options?: { signal?: AbortSignal }): AsyncIterable<BatchItem>;
  /** One page of its items in index order. */
  items(query?: BatchItemQuery, options?: { signal?: AbortSignal }): Promise<BatchItemPage>;
  /** Cancels it: pending items are skipped; running ones finish and are charged. */
  cancel(options?: { signal?: AbortSignal }): Promise<Batch>;
}

export interface Batches {
  create<T extends ToolName>(batch: NewBatch<T>, options?: BatchOptions): Promise<BatchHandle>;
  /** A handle on a batch made earlier (reads it once). */
  get(id: string, options?: { signal?: AbortSignal }): Promise<BatchHandle>;
  list(query?: { limit?: number; cursor?: string }, options?: { signal?: AbortSignal }): Promise<BatchPage>;
}

export function createBatches(transport: Transport, token: () => string): Batches {
  const path = (id: string, rest = '') => `/api/v1/batches/${encodeURIComponent(id)}${rest}`;
  const read = async (id: string, signal?: AbortSignal) =>
    (await transport.send({ method: 'GET', path: path(id), token: token(), signal })).body as Batch;

  function handle(created: Batch): BatchHandle {
    const { id } = created;
    return {
      id,
      created,
      progress: (o = {}) => read(id, o.signal),
      items: async (query = {}, o = {}) =>
        (await transport.send({ method: 'GET', path: path(id, '/items'), query: { ...query }, token: token(), signal: o.signal }))
          .body as BatchItemPage,
      cancel: async (o = {}) =>
        (await transport.send({ method: 'DELETE', path: path(id), token: token(), signal: o.signal })).body as Batch,
      results: (o = {}) => lines(transport, path(id, '/results'), token(), o.signal),
    };
  }

  return {
    async create(batch, options = {}) {
      const answer = await transport.send({
        method: 'POST',
        path: '/api/v1/batches',
        token: token(),
        body: batch,
        headers: { 'idempotency-key': options.idempotencyKey ?? newKey() },
        repeatable: true,
        signal: options.signal,
        retry: options.retry,
      });
      return handle(answer.body as Batch);
    },
    get: async (id, o = {}) => handle(await read(id, o.signal)),
    list: async (query = {}, o = {}) =>
      (await transport.send({ method: 'GET', path: '/api/v1/batches', query: { ...query }, token: token(), signal: o.signal }))
        .body as BatchPage,
  };
}

/** The NDJSON stream's items, one per line, as they arrive. */
async function* lines(transport: Transport, path: string, token: string, signal?: AbortSignal): AsyncGenerator<BatchItem> {
  const res = await transport.open({ path, token, signal, accept: 'application/x-ndjson' });
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      text += decoder.decode(value, { stream: !done });
      const complete = text.split('\n');
      text = done ? '' : complete.pop()!;
      for (const line of complete) if (line.trim()) yield JSON.parse(line) as BatchItem;
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
