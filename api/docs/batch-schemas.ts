//! Component schemas of batches (`/api/v1/batches`): the request, the batch, its items and the
//! lines of its results; the `data` of the batch events shares the batch's counts.
import { page, credits, id, ref, type JsonSchema } from './schema-parts.js';

import { Batch, MAX_BATCH_ITEMS as MAX_ITEMS } from '../../domain/batches/index.js';
import { BatchCounts } from '../../domain/calls/index.js';
import { BatchRequestBody } from '../bodies/batches.js';

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

export const BATCH_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  BatchCounts,
  BatchRequest: BatchRequestBody,
  Batch,
  BatchPage: page('Batches, newest first.', 'Batch'),
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
  BatchItemPage: page('Items in index order.', 'BatchItem'),
};
