//! Counts of a batch's items by status, declared once: the type the batch documents keep and the
//! `BatchCounts` schema of the OpenAPI document (documents.ts holds types only).
import { type Static, Type } from '@sinclair/typebox';

const count = (description: string) => Type.Integer({ minimum: 0, description });

/** Counts of a batch's items by status, they always add up to its `total`: their type, and the `BatchCounts` schema of the OpenAPI document. */
export const BatchCounts = Type.Object(
  {
    pending: count('Not started yet.'),
    running: count('Their call is running.'),
    succeeded: count('Their call answered its output; each is charged.'),
    failed: count('Their call answered a problem; not charged.'),
    skipped: count('Never ran: the batch was cancelled (`cancelled`) or credits ran short (`insufficient_credits`); not charged.'),
  },
  { description: 'Items by status; they add up to `total`.' },
);
export type BatchCounts = Static<typeof BatchCounts>;
