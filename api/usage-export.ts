//! The usage ledger for a period (`from`, `to` query parameters), and as CSV for a statement.
import type { Collection } from 'mongodb';
import { ServiceError } from '../contracts/errors.js';
import type { LedgerEntry } from '../domain/account-documents.js';
import { dayOf } from '../domain/render-cache.js';

const DAY_MS = 24 * 3600 * 1000;
/** The longest period one export covers. */
export const MAX_EXPORT_DAYS = 366;
/** The most rows one export holds: a busier period is asked for in parts. */
export const MAX_EXPORT_ROWS = 100_000;
/** An export with no `from` covers this many days before `to`. */
const DEFAULT_EXPORT_DAYS = 31;

export interface UsagePeriod {
  from: Date | null;
  to: Date | null;
  /** The `at` condition, when a bound was given. */
  filter: { $gte?: Date; $lt?: Date } | null;
}

function parseTime(raw: unknown, name: string): Date | null {
  if (raw === undefined) return null;
  const date =
    typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) ? new Date(raw) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw new ServiceError('validation_failed', `${name} must be a date (2026-05-01) or an ISO 8601 time.`, {
      errors: [{ field: `query:${name}`, message: 'is not a date or time' }],
    });
  }
  return date;
}

/** `from` (inclusive) and `to` (exclusive) from the query; either may be left out. */
export function usagePeriod(fromRaw: unknown, toRaw: unknown): UsagePeriod {
  const from = parseTime(fromRaw, 'from');
  const to = parseTime(toRaw, 'to');
  if (from && to && from >= to)
    throw new ServiceError('validation_failed', 'from must be before to.', {
      errors: [{ field: 'query:from', message: 'is not before to' }],
    });
  const filter = from || to ? { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) } : null;
  return { from, to, filter };
}

/** The `keyId` query parameter: only that key's calls. */
export function usageKeyId(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^key_[0-9A-Za-z_-]{1,64}$/.test(raw)) {
    throw new ServiceError('validation_failed', 'keyId must be an API key id (key_...).', {
      errors: [{ field: 'query:keyId', message: 'is not a key id' }],
    });
  }
  return raw;
}

/**
 * The UTC days a usage answer's `days` cover: those the period touches, `to` excluded; without
 * `from`, DEFAULT_EXPORT_DAYS days up to `to` (or now), as an export's.
 */
export function usageDayRange(period: UsagePeriod, now = new Date()): { from: string; to?: string } {
  const to = period.to ?? now;
  const from = period.from ?? new Date(to.getTime() - (DEFAULT_EXPORT_DAYS - 1) * DAY_MS);
  return { from: dayOf(from), ...(period.to ? { to: dayOf(new Date(period.to.getTime() - 1)) } : {}) };
}

const csvField = (value: unknown) => {
  const text = value == null ? '' : value instanceof Date ? value.toISOString() : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The period's rows, oldest first, as CSV (RFC 4180) with a header line. */
export async function usageCsv(ledger: Collection<LedgerEntry>, accountId: string, period: UsagePeriod, keyId?: string, now = new Date()) {
  const to = period.to ?? now;
  const from = period.from ?? new Date(to.getTime() - DEFAULT_EXPORT_DAYS * DAY_MS);
  if (to.getTime() - from.getTime() > MAX_EXPORT_DAYS * DAY_MS) {
    throw new ServiceError('validation_failed', `An export covers at most ${MAX_EXPORT_DAYS} days.`, {
      errors: [{ field: 'query:from', message: `is more than ${MAX_EXPORT_DAYS} days before to` }],
    });
  }
  const rows = await ledger
    .find({ accountId, at: { $gte: from, $lt: to }, ...(keyId ? { keyId } : {}) })
    .sort({ at: 1, _id: 1 })
    .limit(MAX_EXPORT_ROWS + 1)
    .toArray();
  if (rows.length > MAX_EXPORT_ROWS) {
    throw new ServiceError('validation_failed', `The period holds more than ${MAX_EXPORT_ROWS} rows; export it in shorter parts.`, {
      errors: [{ field: 'query:from', message: 'covers too many rows' }],
    });
  }
  const lines = ['at,requestId,tool,outcome,credits,grantId,keyId'];
  for (const r of rows) lines.push([r.at, r._id, r.tool, r.outcome, r.credits, r.grantId, r.keyId].map(csvField).join(','));
  return { csv: `${lines.join('\r\n')}\r\n`, filename: `usage-${dayOf(from)}-to-${dayOf(to)}.csv` };
}
