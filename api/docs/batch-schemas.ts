//! Component schemas of batches (`/api/v1/batches`): the request, the batch, its items and the
//! lines of its results; the `data` of the batch events shares the batch's counts.
import { credits, dateTime, id, nextCursor, nullableDateTime, record, ref, type JsonSchema } from './schema-parts.js';

import { MAX_BATCH_ITEMS as MAX_ITEMS } from '../../domain/batches/index.js';
import { BatchRequestBody } from '../bodies/batches.js';

const count = (description: string) => ({ type: 'integer', minimum: 0, description });

/** A batch's counts: they add up to its `total`. */
export const batchCounts = record('Items by status; they add up to `total`.', {
  pending: count('Not started yet.'),
  running: count('Their call is running.'),
  succeeded: count('Their call answered its output; each is charged.'),
  failed: count('Their call answered a problem; not charged.'),
  skipped: count('Never ran: the batch was cancelled (`cancelled`) or credits ran short (`insufficient_credits`); not charged.'),
});

/** The batch event's `data`: the batch's id, tool, status and counts. */
export const batchEventFields = {
  batchId: id('bat', 'The batch.'),
  tool: { type: 'string', description: 'Tool name.' },
  status: { type: 'string', enum: ['running', 'paused', 'completed', 'cancelled'] },
  total: { type: 'integer', minimum: 1, maximum: MAX_ITEMS },
  counts: ref('BatchCounts'),
  charged: credits('Credits charged so far: the cost of each item that succeeded.'),
};

const itemStatus = { type: 'string', enum: ['pending', 'running', 'succeeded', 'failed', 'skipped'] };

/** `schema` with more properties that are present only sometimes. */
function withOptional(schema: JsonSchema, optional: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...optional } };
}

export const BATCH_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  BatchCounts: batchCounts,
  BatchRequest: BatchRequestBody,
  Batch: withOptional(
    record('A batch of calls of one tool.', {
      id: id('bat', 'Batch id.'),
      tool: { type: 'string' },
      status: {
        type: 'string',
        enum: ['running', 'paused', 'completed', 'cancelled'],
        description: '`paused`: waiting for credits (`wait`). `cancelled` gains `completedAt` once its running items ended.',
      },
      total: { type: 'integer', minimum: 1, maximum: MAX_ITEMS },
      counts: ref('BatchCounts'),
      charged: credits('Credits charged so far.'),
      onInsufficientCredits: { type: 'string', enum: ['stop', 'wait'] },
      createdAt: dateTime('When the batch was made.'),
      completedAt: nullableDateTime('When its last item ended; null until then.'),
    }),
    {
      destination: {
        type: 'string',
        pattern: '^dst_[0-9A-Za-z]+$',
        description: "The destination its items' files go to; only on a batch that names one.",
      },
    },
  ),
  BatchPage: record('Batches, newest first.', { items: { type: 'array', items: ref('Batch') }, nextCursor }),
  BatchItem: {
    type: 'object',
    description: 'One item: `output` when it succeeded, `error` when it failed or was skipped.',
    required: ['index', 'status', 'requestId'],
    properties: {
      index: { type: 'integer', minimum: 0, description: 'Its position in `items`.' },
      status: itemStatus,
      requestId: {
        type: ['string', 'null'],
        description: "Its call's request id (a workflow in the Temporal UI, a row in usage); null until it started or when it never ran.",
      },
      output: { description: "The output its call answered, the same object a synchronous call answers (see the tool's 200)." },
      error: {
        ...ref('Problem'),
        description: 'The problem its call answered, or why it never ran (`cancelled`, `insufficient_credits`).',
      },
    },
  },
  BatchItemPage: record('Items in index order.', { items: { type: 'array', items: ref('BatchItem') }, nextCursor }),
};
