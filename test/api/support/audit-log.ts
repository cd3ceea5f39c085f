//! Reading the audit log over HTTP for test/api/audit-log-*.test.ts: an account's entries, newest
//! first, and the service's verdict on its chain.
import { request, type TestAccount, type UncheckedJson } from '../../helpers/api.js';

export const log = async (account: TestAccount, query = '') => {
  const res = await request('GET', `/api/v1/account/audit-log${query}`, { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`audit log: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { items: UncheckedJson[]; nextCursor: string | null };
};

export const verify = async (account: TestAccount) =>
  (await request('GET', '/api/v1/account/audit-log/verify', { token: account.ownerToken })).body;
