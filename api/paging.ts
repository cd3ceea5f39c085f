//! Paging of the account's lists (usage, calls, events, webhook attempts): `limit` and an opaque
//! cursor, the last row's position in (time, id) descending order.
import { ServiceError } from '../contracts/errors.js';

/** A list position by (at, id), descending; the cursor is the last row's position. */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(date.getTime())) throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw new ServiceError('validation_failed', 'The cursor is not one this API gave out.', {
      errors: [{ field: 'query:cursor', message: 'is invalid' }],
    });
  }
}

/** A page's size when the request names none, and the most it may name: every list's but those that say otherwise. */
export const LIMIT_DEFAULT = 50;
export const LIMIT_MAX = 200;

export function parseLimit(raw: unknown, fallback = LIMIT_DEFAULT, max = LIMIT_MAX): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new ServiceError('validation_failed', `limit must be an integer from 1 to ${max}.`, {
      errors: [{ field: 'query:limit', message: `must be 1 to ${max}` }],
    });
  }
  return n;
}

/** The cursor the query carries, if any (`cursor`): where the previous page ended. */
export function cursorOf(query: Record<string, unknown>): { at: Date; id: string } | undefined {
  return typeof query.cursor === 'string' ? decodeCursor(query.cursor) : undefined;
}

/** A page of rows newest first as the API answers it: each row as `view` shows it, and the cursor after the last. */
export function pageBody<R extends { createdAt: Date; _id: string }, V>(page: { rows: R[]; more: boolean }, view: (row: R) => V) {
  const last = page.rows.at(-1);
  return { items: page.rows.map(view), nextCursor: page.more && last ? encodeCursor(last.createdAt, last._id) : null };
}

/** A query parameter that takes one of `allowed` (`?type=`, `?action=`), or none. */
export function queryChoice(raw: unknown, allowed: readonly string[], name: string, noun: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !allowed.includes(raw)) {
    throw new ServiceError('validation_failed', `${name} must be one of ${allowed.join(', ')}.`, {
      errors: [{ field: `query:${name}`, message: `is not ${noun}` }],
    });
  }
  return raw;
}
