//! What is left of an account's grants (its lots) and the order they are spent in: the grant that
//! expires first, never-expiring grants last. Pure: the ledger turns a choice made here into one
//! guarded update of the account's document.
import type { Lot } from '../account-documents.js';

/** A lot that can still be spent at `now`: not expired, and not past its expiry waiting for the sweep. */
export function isSpendable(lot: Lot, now: number): boolean {
  return !lot.expiredAt && (lot.expiresAt == null || new Date(lot.expiresAt).getTime() > now);
}

/** Lots past their expiry that have not been expired yet. */
export function dueLots(lots: Record<string, Lot>, now: number): string[] {
  return Object.entries(lots)
    .filter(([, lot]) => !lot.expiredAt && lot.expiresAt != null && new Date(lot.expiresAt).getTime() <= now)
    .map(([id]) => id);
}

/** Spendable lots in spending order: earliest expiry first, never-expiring last, then by id (stable). */
export function spendOrder(lots: Record<string, Lot>, now: number): string[] {
  return unexpiredOrder(lots, now).filter((id) => lots[id]!.remaining > 0);
}

/** Lots not lapsed at `now`, emptied ones included, in spending order. */
function unexpiredOrder(lots: Record<string, Lot>, now: number): string[] {
  const expiry = (lot: Lot) => (lot.expiresAt == null ? Number.POSITIVE_INFINITY : new Date(lot.expiresAt).getTime());
  return Object.entries(lots)
    .filter(([, lot]) => isSpendable(lot, now))
    .sort(([a, x], [b, y]) => expiry(x) - expiry(y) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([id]) => id);
}

/**
 * The common choice, made from lots read earlier: the whole cost from one lot, every lot before it
 * in spending order empty. It is what `allocate` chooses on the account as it is now whenever the
 * same lots exist, none is due, the lots before are still empty and the one chosen still covers
 * the cost, which the ledger's update pins. Null when the lots read do not make that choice.
 */
export function singleLotChoice(lots: Record<string, Lot>, cost: number, now: number): { from: string; emptyBefore: string[] } | null {
  if (cost <= 0 || dueLots(lots, now).length > 0) return null;
  const order = unexpiredOrder(lots, now);
  const at = order.findIndex((id) => lots[id]!.remaining > 0);
  if (at < 0 || lots[order[at]!]!.remaining < cost) return null;
  return { from: order[at]!, emptyBefore: order.slice(0, at) };
}

/** Credits to take from each lot to pay `cost`, in spending order; null when the lots cannot cover it. */
export function allocate(lots: Record<string, Lot>, cost: number, now: number): Record<string, number> | null {
  const take: Record<string, number> = {};
  let left = cost;
  for (const id of spendOrder(lots, now)) {
    if (left === 0) break;
    const n = Math.min(left, lots[id]!.remaining);
    take[id] = n;
    left -= n;
  }
  return left === 0 ? take : null;
}
