//! Reading an asynchronous call back over HTTP for test/api/*.test.ts: its record, and its record
//! once the call has ended.
import { request, type TestAccount } from '../../helpers/api.js';
import { eventually } from '../../helpers/webhook-receiver.js';

/** `GET /api/v1/calls/:requestId` with the account's API key. */
export const getCall = (account: TestAccount, requestId: string) =>
  request('GET', `/api/v1/calls/${encodeURIComponent(requestId)}`, { token: account.apiKey });

/** The answer to `getCall` once the call has ended (or the record is gone), bounded only against a hang. */
export const ended = (account: TestAccount, requestId: string) =>
  eventually(
    () => getCall(account, requestId),
    (res) => res.status !== 200 || res.body.status !== 'running',
    60_000,
    `call ${requestId} to end`,
  );
