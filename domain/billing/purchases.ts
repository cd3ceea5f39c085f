//! Purchases of credit packs: the promise recorded at checkout, the owner's list, and the status a
//! purchase shows as Stripe's events arrive. The credits themselves are the ledger's (fulfilment.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { collections, newestFirst, type PageAfter, viewOf } from '../../lib/mongo.js';
import { Credits, Id, Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../lib/schema-types.js';
import { PURCHASE_STATUSES, type PurchaseDoc, type PurchaseStatus, type StripePaymentDoc } from './documents.js';
import { Currency, MinorUnits } from './packs.js';

/** A purchase as the owner sees it (GET /api/v1/account/purchases): its type, and the `Purchase` schema of the OpenAPI document. */
export const Purchase = Type.Object(
  {
    id: Id('pur', 'Purchase id.'),
    packId: Type.String({ examples: ['starter'] }),
    packName: Type.String({ description: "The pack's name when it was bought." }),
    credits: Type.Integer({ minimum: 1, description: 'Credits promised when it was bought (granted once paid).' }),
    amount: MinorUnits("Price paid, in the currency's minor unit."),
    currency: Currency,
    status: StringEnum(PURCHASE_STATUSES, {
      description:
        '`pending` until Stripe says it is paid; `failed` when a delayed payment failed; `disputed` while a dispute is open or after one was lost.',
    }),
    creditsVoided: Credits('Credits taken back for refunds and disputes: the refunded share, at most what was left unspent.'),
    amountRefunded: MinorUnits('Refunded so far, in the minor unit.'),
    expiresInDays: Nullable(Type.Integer({ minimum: 1, description: 'Its credits lapse this many days after payment; null: never.' })),
    createdAt: Timestamp('When the checkout was opened.'),
    paidAt: NullableTimestamp('When it was paid; null while it is not.'),
    receiptUrl: Nullable(Type.String({ format: 'uri', description: "Stripe's receipt, once Stripe has sent it." })),
  },
  { description: 'A purchase of a credit pack and what became of its payment.' },
);
export type PurchaseView = Static<typeof Purchase>;

export const purchaseView = (p: PurchaseDoc): PurchaseView =>
  viewOf(p, [
    'packId',
    'packName',
    'credits',
    'amount',
    'currency',
    'status',
    'creditsVoided',
    'amountRefunded',
    'expiresInDays',
    'createdAt',
    'paidAt',
    'receiptUrl',
  ]);

/**
 * The status a paid purchase shows from what Stripe said of its payment: disputed while a dispute
 * is open or was lost, else refunded in full or in part, else paid.
 */
export function paidStatus(
  payment: Pick<StripePaymentDoc, 'amount' | 'amountRefunded' | 'disputes'> | null,
  amount: number,
): PurchaseStatus {
  const disputes = Object.values(payment?.disputes ?? {});
  if (disputes.some((s) => s !== 'won')) return 'disputed';
  const refunded = payment?.amountRefunded ?? 0;
  if (refunded <= 0) return 'paid';
  return refunded >= (payment?.amount ?? amount) ? 'refunded' : 'partially_refunded';
}

export function createPurchases(db: Db) {
  const { purchases } = collections(db);
  return {
    /** The account's purchases, newest first; `before` pages by creation. */
    async list(accountId: string, options: { limit: number; before?: PageAfter }): Promise<{ items: PurchaseDoc[]; more: boolean }> {
      const { rows, more } = await newestFirst(purchases, { accountId }, { limit: options.limit, after: options.before });
      return { items: rows, more };
    },
    bySession: (sessionId: string) => purchases.findOne({ sessionId }),
    byPaymentIntent: (paymentIntentId: string) => purchases.findOne({ paymentIntentId }),
    get: (id: string) => purchases.findOne({ _id: id }),
  };
}

export type Purchases = ReturnType<typeof createPurchases>;
