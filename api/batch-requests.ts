//! A batch as the API makes it: the request checked (its shape, its tool, then every item merged
//! over `defaults` and validated as that tool's call would be, before anything starts), its
//! idempotency key claimed, its items stored with their secret fields sealed, and its runner woken.
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { findTool, type ToolDefinition } from '../domain/tools/index.js';
import { batchItemId, createBatches, type NewBatchItem, wakeBatchRunner } from '../domain/batches/index.js';
import type { EventSink } from '../domain/events/index.js';
import type { BatchDoc } from '../domain/calls/index.js';
import { ServiceError } from '../contracts/errors.js';
import { derivedId } from '../lib/ids.js';
import { untilReachable } from '../lib/mongo.js';
import { seal, splitSecrets } from '../lib/sealed.js';
import type { TargetGuard } from '../lib/target-guard.js';
import { untilDeadline } from '../lib/until-deadline.js';
import { BatchRequestBody } from './bodies/batches.js';
import type { DestinationService } from '../domain/destinations/index.js';
import { createIdempotency } from './call-idempotency.js';
import { unavailable } from './call-workflow.js';
import { compileBodySchema, validationProblem, type FieldError, type Validators } from './validation.js';

/** A batch's request body may be this large (documented in the error guide and the operation). */
export const BATCH_BODY_LIMIT = 16 * 1024 * 1024;

/** Field errors named in one answer: enough to fix a whole family of mistakes, not 10,000 lines. */
const MAX_FIELD_ERRORS = 100;

/** How long a new batch waits for the database or Temporal before answering 503. */
const CREATE_WAIT_MS = 30_000;

export interface BatchRequest {
  accountId: string;
  body: Record<string, unknown>;
  idempotencyKey?: string;
  arrivedAt: number;
}

export interface BatchAnswer {
  batch: BatchDoc;
  replayed: boolean;
}

const checkShape = compileBodySchema(BatchRequestBody);

export function createBatchRequests(deps: {
  db: Db;
  client: Client;
  secretKey: Buffer;
  validators: Validators;
  guard: Pick<TargetGuard, 'checkTargets'>;
  /** Checks the destination a batch names (only batches that name one). */
  destinations: Pick<DestinationService, 'forCall'>;
  onEvent?: EventSink;
}) {
  const batches = createBatches(deps.db, deps.onEvent);
  const { claim } = createIdempotency(deps);

  /** Every item's input, merged over `defaults`, defaults of the schema applied; 400 naming each bad field as `/items/<i>/...`. */
  function validItems(
    tool: ToolDefinition,
    items: Record<string, unknown>[],
    defaults: Record<string, unknown>,
  ): Record<string, unknown>[] {
    const errors: FieldError[] = [];
    const inputs = items.map((item, i) => {
      const input = { ...structuredClone(defaults), ...item };
      try {
        deps.validators.validate(tool.name, input);
        tool.precheck?.(input);
        if (tool.targets) deps.guard.checkTargets(tool.targets(input));
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const fields = (err.extras.errors as FieldError[] | undefined) ?? [{ field: '', message: err.message }];
        // Another refusal than a schema's (a target the guard refuses): the same code, naming the item.
        if (err.code !== 'validation_failed') throw new ServiceError(err.code, `Item ${i}: ${err.message}`, { ...err.extras, index: i });
        for (const f of fields)
          if (errors.length < MAX_FIELD_ERRORS) errors.push({ field: `/items/${i}${f.field === '/' ? '' : f.field}`, message: f.message });
      }
      return input;
    });
    if (errors.length > 0) throw validationProblem(errors);
    return inputs;
  }

  function knownTool(name: string): ToolDefinition {
    const tool = findTool(name);
    if (!tool) throw validationProblem([{ field: '/tool', message: `is not a tool: GET /api/v1/tools lists them` }]);
    return tool;
  }

  return {
    async create(req: BatchRequest): Promise<BatchAnswer> {
      const body = checkShape(req.body);
      const tool = knownTool(body.tool);
      const inputs = validItems(tool, body.items, body.defaults ?? {});
      const onInsufficientCredits = body.onInsufficientCredits ?? 'stop';
      const named = body.destination;
      const destination = named === undefined ? undefined : await deps.destinations.forCall(req.accountId, named, tool, '/destination');

      const deadline = req.arrivedAt + CREATE_WAIT_MS;
      // The key names the whole request: a repeat finds the batch the first one made.
      const claimed = await untilReachable(deadline, () =>
        claim({
          accountId: req.accountId,
          tool: { name: `batch:${tool.name}` },
          input: { items: inputs, onInsufficientCredits },
          idempotencyKey: req.idempotencyKey,
          ...(destination ? { destination } : {}),
        }),
      );
      const id = derivedId('bat', claimed.workflowId);
      const existing = claimed.replayed ? await batches.byId(req.accountId, id) : null;
      const batch =
        existing ??
        (await untilReachable(deadline, () =>
          batches.create({
            id,
            accountId: req.accountId,
            tool: tool.name,
            cost: tool.cost,
            onInsufficientCredits,
            ...(destination ? { destination } : {}),
            items: inputs.map((input, index) => sealedItem(deps.secretKey, tool, input, batchItemId(id, index))),
            now: new Date(),
          }),
        ));
      // A repeat wakes it too: the first request may have stored the batch and then failed to.
      await untilDeadline(
        deadline,
        () => wakeBatchRunner(deps.client, req.accountId),
        () => undefined,
        unavailable,
      );
      return { batch, replayed: existing !== null };
    },

    /** Cancels the batch and wakes its runner, which skips what is pending; null when the account has no such batch. */
    async cancel(accountId: string, id: string): Promise<BatchDoc | null> {
      const batch = await batches.cancel(accountId, id);
      if (batch)
        await untilDeadline(
          Date.now() + CREATE_WAIT_MS,
          () => wakeBatchRunner(deps.client, accountId),
          () => undefined,
          unavailable,
        );
      return batch;
    },

    batches,
  };
}

/** An item as stored: its secret fields sealed with SECRET_KEY, bound to the item. */
function sealedItem(secretKey: Buffer, tool: ToolDefinition, input: Record<string, unknown>, itemId: string): NewBatchItem {
  const { clear, secret, hasSecrets } = splitSecrets(input, tool.secretFields ?? []);
  return hasSecrets ? { input: clear, sealed: seal(secretKey, secret, itemId) } : { input: clear };
}

export type BatchRequests = ReturnType<typeof createBatchRequests>;
