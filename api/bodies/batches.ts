//! The batch request's body (POST /api/v1/batches, api/batch-requests.ts): validation, the
//! `BatchRequest` component of the OpenAPI document and its type in one.
import { type Static, Type } from '@sinclair/typebox';
import { MAX_BATCH_ITEMS } from '../../domain/batches/index.js';
import { ClosedObject, StringEnum } from '../../lib/schema-types.js';

/** A tool's input, validated by that tool's own schema once merged over `defaults`. */
const input = (description: string) => Type.Unsafe<Record<string, unknown>>({ type: 'object', description });

export const BatchRequestBody = ClosedObject(
  {
    tool: Type.String({ description: 'Tool name, as in `/api/v1/tools/{tool}`.', examples: ['hash-text'] }),
    items: Type.Array(input("One call's input (the tool's request body), merged over `defaults`."), {
      minItems: 1,
      maxItems: MAX_BATCH_ITEMS,
      description: "The inputs, one call each, validated against the tool's schema before anything starts.",
    }),
    defaults: Type.Optional(input('Fields every item inherits unless it sets them itself.')),
    destination: Type.Optional(
      Type.String({
        pattern: '^dst_[0-9A-Za-z]+$',
        description:
          "A destination of the account (`/api/v1/account/destinations`): each item's file goes to `{prefix}/{batchId}/{index}.{ext}` in its bucket and the item's output says where (`stored`), charged only once written. Only for the tools that make a file.",
      }),
    ),
    onInsufficientCredits: Type.Optional(
      StringEnum(['stop', 'wait'], {
        default: 'stop',
        description:
          '`stop`: the rest is skipped with `insufficient_credits`. `wait`: the batch pauses (`batch.paused`) and resumes by itself when credits are granted, for up to 7 days, then stops.',
      }),
    ),
  },
  { description: "A batch: one tool, its items' inputs, and what to do when credits run short." },
);
export type BatchRequestBody = Static<typeof BatchRequestBody>;
