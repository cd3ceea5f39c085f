//! The account document's shared pieces: the paths of a hold and of a grant's lot, the opening
//! grant's id, a new account as the ledger expects it, and reading one.
import type { Collection } from 'mongodb';
import type { AccountDoc, AccountPlan } from '../account-documents.js';
import { derivedId } from '../../lib/ids.js';

/** The charged balance under which `credits.low` fires (once per crossing). */
export const LOW_BALANCE_THRESHOLD = 25;

/** The opening grant's id: derived, so opening an account records it once. */
export const welcomeGrantId = (accountId: string) => derivedId('grt', `${accountId}:welcome`);

export class AccountNotFoundError extends Error {
  override readonly name = 'AccountNotFoundError';
}

export const holdPath = (requestId: string) => `holds.${requestId}`;
export const lotPath = (grantId: string) => `lots.${grantId}`;
/** The calendar month (UTC) a key's spending counts in: `YYYY-MM`. */
export const spendMonth = (at: number): string => new Date(at).toISOString().slice(0, 7);

/** Where a key's spending in a month (`YYYY-MM`) is counted: key ids and months hold no dot. */
export const keySpendPath = (keyId: string, month: string) => `keySpend.${keyId}.${month}`;

/**
 * What refuses `call` for its key's monthly limit in `doc`, at `month`: the limit and what the key
 * has spent (or holds) that month; undefined when the key has no limit or the cost fits.
 */
export function keyLimitRefusal(
  doc: Pick<AccountDoc, 'keySpend'>,
  call: { keyId?: string; keyCreditLimit?: number; cost: number },
  month: string,
) {
  if (!call.keyId || call.keyCreditLimit === undefined) return undefined;
  const spent = doc.keySpend?.[call.keyId]?.[month] ?? 0;
  return spent + call.cost > call.keyCreditLimit ? { limit: call.keyCreditLimit, spent } : undefined;
}

export function newAccountDoc(fields: {
  id: string;
  name?: string | null;
  email?: string | null;
  credits: number;
  now: Date;
  plan?: AccountPlan;
}): AccountDoc {
  return {
    _id: fields.id,
    name: fields.name ?? null,
    email: fields.email ?? null,
    balance: fields.credits,
    chargedBalance: fields.credits,
    holds: {},
    lots: fields.credits > 0 ? { [welcomeGrantId(fields.id)]: { remaining: fields.credits, expiresAt: null } } : {},
    entries: [],
    ...(fields.plan ? { plan: fields.plan } : {}),
    lowArmed: fields.credits >= LOW_BALANCE_THRESHOLD,
    exhaustedArmed: fields.credits > 0,
    outbox: [],
    createdAt: fields.now,
  };
}

/** The account, or AccountNotFoundError. */
export async function readAccount(accounts: Collection<AccountDoc>, accountId: string): Promise<AccountDoc> {
  const doc = await accounts.findOne({ _id: accountId });
  if (!doc) throw new AccountNotFoundError(`account ${accountId} does not exist`);
  return doc;
}
