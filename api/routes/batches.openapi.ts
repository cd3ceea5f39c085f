//! The OpenAPI operations of the batch routes (`api/routes/batches.ts`), beside them rather than
//! inside them so the handlers' file stays about handling.
import { MAX_BATCH_ITEMS } from '../../domain/batches/index.js';
import { BATCH_BODY_LIMIT } from '../batch-requests.js';
import { BATCHES_DEFAULT_LIMIT, BATCHES_MAX_LIMIT } from './batches.js';
import { ANSWER_HEADERS, headerRef, json, paramRef, RATE_LIMIT_HEADERS } from '../docs/openapi-parts.js';
import {
  answer,
  BODY_CODES,
  example,
  KEY,
  linked,
  OWNER,
  pageParameters,
  resource,
  withRateLimit,
  type RouteOperation,
} from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations on one batch, each taking its id: what a new batch's answer links to. */
const BATCH_OPERATIONS = ['getBatch', 'listBatchItems', 'getBatchResults', 'cancelBatch'] as const;

/** The operations `batchRoutes` serves, as the OpenAPI document lists them. */
export function batchOperations(): RouteOperation[] {
  const batches = resource('batches', KEY, 'BatchId');
  const account = resource('account', OWNER, 'BatchId');
  return [
    batches('post', '/api/v1/batches', {
      operationId: 'createBatch',
      summary: 'Make a batch',
      description:
        `Up to ${MAX_BATCH_ITEMS.toLocaleString('en')} calls of one tool as one job. Every item, merged over \`defaults\`, is validated as that tool's request body before anything starts ` +
        '(400 `validation_failed`, fields named `/items/<index>/<field>`). Each item then runs as the call it would have been: charged if and only if it succeeds, ' +
        "visible in usage with its own request id. The account's batch items run a few at a time, all its batches together, beside its other calls. " +
        `The body may be up to ${BATCH_BODY_LIMIT / (1024 * 1024)} MiB. \`Idempotency-Key\` makes the request safe to repeat: a repeat with the same key and body answers the same batch.`,
      parameters: [paramRef('Idempotency-Key')],
      requestBody: {
        required: true,
        content: json(
          ref('BatchRequest'),
          example({ tool: 'hash-text', items: [{ text: 'alpha' }, { text: 'beta' }], defaults: { algorithm: 'sha256' } }),
        ),
      },
      ok: linked(
        {
          '202': {
            description: 'The batch runs; follow it at `Location`. Nothing is charged yet.',
            headers: {
              ...ANSWER_HEADERS,
              Location: { description: 'The batch: `/api/v1/batches/{id}`.', schema: { type: 'string' } },
              ...RATE_LIMIT_HEADERS,
              'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
            },
            content: json(ref('Batch')),
          },
        },
        Object.fromEntries(BATCH_OPERATIONS.map((operationId) => [operationId, { id: '$response.body#/id' }])),
      ),
      codes: [...BODY_CODES, 'idempotency_conflict', 'target_not_allowed'],
    }),
    batches('get', '/api/v1/batches', {
      operationId: 'listBatches',
      summary: 'List batches',
      description: "The account's batches, newest first, with their counts. Page with `cursor`.",
      parameters: pageParameters('Batches', BATCHES_MAX_LIMIT, BATCHES_DEFAULT_LIMIT),
      ok: answer('A page of batches.', 'BatchPage'),
      codes: ['validation_failed'],
    }),
    batches('get', '/api/v1/batches/{id}', {
      operationId: 'getBatch',
      summary: 'Get a batch',
      description: "Its status and counts. Another account's batch is 404.",
      ok: answer('The batch.', 'Batch'),
      codes: ['not_found'],
    }),
    batches('delete', '/api/v1/batches/{id}', {
      operationId: 'cancelBatch',
      summary: 'Cancel a batch',
      description:
        'No item starts any more: pending items are `skipped` with `cancelled` (never charged); running ones finish and are charged as usual. The batch is `cancelled`, with `completedAt` once its running items ended. ' +
        'Cancelling an ended batch answers it as it is.',
      ok: answer('The batch, cancelled.', 'Batch'),
      codes: ['not_found'],
    }),
    batches('get', '/api/v1/batches/{id}/items', {
      operationId: 'listBatchItems',
      summary: 'List the items of a batch',
      description:
        "Items in index order, of one `status` when given: each succeeded item's `output` (what its call answered), each failed or skipped item's `error` (the problem). " +
        "Outputs are kept 24 hours after their item ended, as an asynchronous call's are.",
      parameters: [
        {
          name: 'status',
          in: 'query',
          required: false,
          description: 'Only items of this status.',
          schema: { type: 'string', enum: ['pending', 'running', 'succeeded', 'failed', 'skipped'] },
        },
        ...pageParameters('Items'),
      ],
      ok: answer('A page of items.', 'BatchItemPage'),
      codes: ['not_found', 'validation_failed'],
    }),
    batches('get', '/api/v1/batches/{id}/results', {
      operationId: 'getBatchResults',
      summary: 'Stream the results of a batch',
      description:
        'One JSON line per finished item (a `BatchItem`: succeeded, failed or skipped), in the order they finished, streamed as they finish: usable while the batch runs. ' +
        'The stream ends once the batch has ended and every line was sent.',
      ok: withRateLimit('The finished items, one JSON object a line.', { 'application/x-ndjson': { schema: ref('BatchItem') } }),
      codes: ['not_found'],
    }),
    account('get', '/api/v1/account/batches', {
      operationId: 'listAccountBatches',
      summary: 'List batches (owner)',
      description: "The account's batches, newest first, as `GET /api/v1/batches` lists them: what the dashboard shows.",
      parameters: pageParameters('Batches', BATCHES_MAX_LIMIT, BATCHES_DEFAULT_LIMIT),
      ok: answer('A page of batches.', 'BatchPage'),
      codes: ['validation_failed'],
    }),
    account('delete', '/api/v1/account/batches/{id}', {
      operationId: 'cancelAccountBatch',
      summary: 'Cancel a batch (owner)',
      description: "Cancels a batch as `DELETE /api/v1/batches/{id}` does: the dashboard's Cancel button.",
      ok: answer('The batch, cancelled.', 'Batch'),
      codes: ['not_found'],
    }),
  ];
}
