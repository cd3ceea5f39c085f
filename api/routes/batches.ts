//! Batches as HTTP, under an API key: `POST /api/v1/batches` (202 and `Location`), the account's
//! batches newest first, one batch, its items page by page, its finished items as NDJSON streamed
//! as they finish, and `DELETE` to cancel; the list and cancel also under the owner token, for the
//! dashboard. batch-requests.ts makes and cancels them.
import Router from '@koa/router';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Middleware } from 'koa';
import { batchView } from '../../domain/batches/index.js';
import { isErrorCode, ServiceError } from '../../contracts/errors.js';
import type { BatchDoc, BatchItemDoc } from '../../domain/calls/index.js';
import type { Authenticator } from '../auth.js';
import { type BatchRequests, BATCH_BODY_LIMIT } from '../batch-requests.js';
import { readJsonObject } from '../body.js';
import { parseIdempotencyKey } from '../call-idempotency.js';
import type { OutputBodies } from '../output-body.js';
import { cursorOf, pageBody, parseLimit } from '../paging.js';
import { problemBody } from '../problem.js';

export const BATCHES_DEFAULT_LIMIT = 20;
export const BATCHES_MAX_LIMIT = 100;
/** Results are read in pages of this many finished items, and looked for again this often while the batch runs. */
const RESULTS_PAGE = 200;
const RESULTS_POLL_MS = 500;
/** How far back each round of results looks again for items whose end was written late. */
const RESULTS_MARGIN_MS = 10_000;

const ITEM_STATUSES: readonly BatchItemDoc['status'][] = ['pending', 'running', 'succeeded', 'failed', 'skipped'];

export const batchLocation = (id: string) => `/api/v1/batches/${encodeURIComponent(id)}`;

/** An items cursor: the next index to read, opaque to clients. */
const itemsCursor = (index: number) => Buffer.from(`i${index}`).toString('base64url');
function fromItemsCursor(raw: unknown): number {
  if (raw === undefined) return 0;
  const text = typeof raw === 'string' ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  const index = /^i(\d{1,5})$/.exec(text)?.[1];
  if (index === undefined)
    throw new ServiceError('validation_failed', 'The cursor is not one this API gave out.', {
      errors: [{ field: 'query:cursor', message: 'is invalid' }],
    });
  return Number(index);
}

function itemStatus(raw: unknown): BatchItemDoc['status'] | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && (ITEM_STATUSES as readonly string[]).includes(raw)) return raw as BatchItemDoc['status'];
  throw new ServiceError('validation_failed', `status must be one of ${ITEM_STATUSES.join(', ')}.`, {
    errors: [{ field: 'query:status', message: `must be one of ${ITEM_STATUSES.join(', ')}` }],
  });
}

export function batchRoutes(deps: {
  auth: Authenticator;
  rateLimit: Middleware;
  baseUrl: string;
  outputs: OutputBodies;
  requests: BatchRequests;
}): Router {
  const router = new Router();
  const { batches } = deps.requests;
  const byKey = [deps.auth.require('api_key'), deps.rateLimit];
  const byOwner = [deps.auth.require('owner_token'), deps.rateLimit];

  async function ownBatch(ctx: Context): Promise<BatchDoc> {
    const id = ctx.params.id!;
    const doc = await batches.byId(ctx.state.principal.accountId, id);
    // Another account's batch is as unknown as one that never was.
    if (!doc) throw new ServiceError('not_found', `There is no batch ${id} on this account.`);
    return doc;
  }

  /** An item as the API answers it: `output` as its call answered it, or `error` as the problem. */
  async function itemView(batch: BatchDoc, doc: BatchItemDoc) {
    const view: Record<string, unknown> = { index: doc.index, status: doc.status, requestId: doc.requestId ?? null };
    if (doc.status === 'succeeded') view.output = await deps.outputs.value(doc.output);
    if (doc.problem && isErrorCode(doc.problem.code))
      view.error = problemBody(deps.baseUrl, doc.problem.code, doc.problem.detail, doc.requestId ?? batch._id, doc.problem.extras);
    return view;
  }

  router.post('/api/v1/batches', ...byKey, async (ctx) => {
    const idempotencyKey = parseIdempotencyKey(ctx.headers['idempotency-key'] as string | undefined);
    const body = await readJsonObject(ctx, BATCH_BODY_LIMIT);
    const { batch, replayed } = await deps.requests.create({
      accountId: ctx.state.principal.accountId,
      body,
      idempotencyKey,
      arrivedAt: Date.now(),
    });
    ctx.status = 202;
    ctx.set('Location', batchLocation(batch._id));
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = batchView(batch);
  });

  async function list(ctx: Context) {
    const limit = parseLimit(ctx.query.limit, BATCHES_DEFAULT_LIMIT, BATCHES_MAX_LIMIT);
    ctx.body = pageBody(await batches.page(ctx.state.principal.accountId, { limit, after: cursorOf(ctx.query) }), batchView);
  }

  async function cancel(ctx: Context) {
    const batch = await deps.requests.cancel(ctx.state.principal.accountId, ctx.params.id!);
    if (!batch) throw new ServiceError('not_found', `There is no batch ${ctx.params.id} on this account.`);
    ctx.body = batchView(batch);
  }

  router.get('/api/v1/batches', ...byKey, list);
  // The dashboard's: the same list and cancel under the owner token.
  router.get('/api/v1/account/batches', ...byOwner, list);
  router.delete('/api/v1/account/batches/:id', ...byOwner, cancel);

  router.get('/api/v1/batches/:id', ...byKey, async (ctx) => {
    ctx.body = batchView(await ownBatch(ctx));
  });

  router.delete('/api/v1/batches/:id', ...byKey, cancel);

  router.get('/api/v1/batches/:id/items', ...byKey, async (ctx) => {
    const batch = await ownBatch(ctx);
    const limit = parseLimit(ctx.query.limit);
    const status = itemStatus(ctx.query.status);
    const { rows, more } = await batches.items(batch._id, { limit, fromIndex: fromItemsCursor(ctx.query.cursor), status });
    const last = rows.at(-1);
    ctx.body = {
      items: await Promise.all(rows.map((r) => itemView(batch, r))),
      nextCursor: more && last ? itemsCursor(last.index + 1) : null,
    };
  });

  router.get('/api/v1/batches/:id/results', ...byKey, async (ctx) => {
    const batch = await ownBatch(ctx);
    let gone = false;
    ctx.req.once('close', () => (gone = true));
    async function* lines() {
      // Items end on many workers, each stamping its own clock, and a write may land after a later
      // one: every round reads back RESULTS_MARGIN_MS before the latest end it saw, and what was
      // sent already (by index) is not sent again.
      const sent = new Set<number>();
      let latest: Date | undefined;
      while (!gone) {
        // Whether it had ended, read before what ended: no item ends after its batch completed.
        const ended = await batches.isDone(batch.accountId, batch._id);
        let after = latest ? { at: new Date(latest.getTime() - RESULTS_MARGIN_MS), id: '' } : undefined;
        for (;;) {
          const rows = await batches.ended(batch._id, after, RESULTS_PAGE);
          for (const row of rows) {
            if (!latest || row.endedAt! > latest) latest = row.endedAt!;
            if (sent.has(row.index)) continue;
            sent.add(row.index);
            yield `${JSON.stringify(await itemView(batch, row))}\n`;
          }
          const last = rows.at(-1);
          if (!last || rows.length < RESULTS_PAGE) break;
          after = { at: last.endedAt!, id: last._id };
        }
        if (ended) return;
        await sleep(RESULTS_POLL_MS);
      }
    }
    ctx.type = 'application/x-ndjson';
    // Lines leave as items finish: no compression or proxy buffering holds them back.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = Readable.from(lines());
    // The status and headers leave now, not with the first line, which may be minutes away.
    ctx.flushHeaders();
  });

  return router;
}
