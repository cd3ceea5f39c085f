//! The audit log over HTTP for test/api/audit-log-*.test.ts: an account's entries, newest first,
//! and the service's verdict on its chain; a plan of the operator's to move an account to, and the
//! draft a change leaves beside itself when its process dies before the entry reaches the chain.
import { adminToken, request, type TestAccount, type UncheckedJson } from '../../helpers/api.js';

export const log = async (account: TestAccount, query = '') => {
  const res = await request('GET', `/api/v1/account/audit-log${query}`, { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`audit log: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { items: UncheckedJson[]; nextCursor: string | null };
};

export const verify = async (account: TestAccount) =>
  (await request('GET', '/api/v1/account/audit-log/verify', { token: account.ownerToken })).body;

/** Creates a plan with a fresh id as the operator; its id and the answer's status (201 when made). */
export async function createPlan(fields: { name: string; monthlyAllowance: number; rollover: string }) {
  const id = `audit-${Date.now().toString(36)}`;
  const res = await request('POST', '/api/v1/admin/plans', { token: adminToken(), body: { id, ...fields } });
  return { id, status: res.status };
}

/**
 * An entry of `account`'s as a change writes it beside itself, before the chain (its id `aud_<tag>…`):
 * by the account's owner, from 203.0.113.9 with the user agent `crashed/1`, now, unless `entry` says
 * otherwise.
 */
export function auditDraft(
  account: TestAccount,
  tag: string,
  entry: {
    action: string;
    target: { type: string; id: string };
    changes: Record<string, unknown>;
    actor?: { type: string; credential: string };
    userAgent?: string | null;
    at?: Date;
  },
) {
  return {
    id: `aud_${tag}${Date.now().toString(36)}`,
    accountId: account.id,
    at: entry.at ?? new Date(),
    actor: entry.actor ?? { type: 'owner', credential: account.ownerToken.slice(0, 12) },
    ip: '203.0.113.9',
    userAgent: entry.userAgent === undefined ? 'crashed/1' : entry.userAgent,
    action: entry.action,
    target: entry.target,
    changes: entry.changes,
  };
}
