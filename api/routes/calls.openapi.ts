//! The OpenAPI operations of asynchronous calls: their status and outcome (`api/routes/calls.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { CALL_ANSWER_RETENTION_MS, CALL_TOMBSTONE_MS } from '../../domain/calls/index.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { answer, KEY_CODES, operation, OWNER, PAGE_PARAMETERS, resource, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function callOperations(): RouteOperation[] {
  const account = resource('account', OWNER);
  return [
    operation('get', '/api/v1/calls', {
      tag: 'calls',
      operationId: 'listCalls',
      summary: 'List asynchronous calls',
      security: [{ apiKey: [] }],
      description:
        "The account's asynchronous calls, newest first, with their status (no output). Page with `cursor`. The owner token reads the same list at `/api/v1/account/calls`.",
      parameters: [paramRef('UsageLimit'), paramRef('UsageCursor')],
      ok: withRateLimit('A page of calls.', json(ref('CallPage'))),
      codes: [...KEY_CODES, 'validation_failed'],
    }),
    operation('get', '/api/v1/calls/{requestId}', {
      tag: 'calls',
      operationId: 'getCall',
      summary: 'Get an asynchronous call',
      security: [{ apiKey: [] }],
      description:
        '`running` (with `Retry-After`), then `succeeded` with the output or `failed` with the problem a synchronous call would have answered. ' +
        `The answer is kept ${CALL_ANSWER_RETENTION_MS / 3_600_000} hours after the call ended, then \`call_expired\` (410) for ${CALL_TOMBSTONE_MS / 86_400_000} days, then 404. Another account's call is 404.`,
      parameters: [paramRef('RequestId')],
      ok: withRateLimit('The call.', json(ref('Call'))),
      codes: [...KEY_CODES, 'not_found', 'call_expired'],
    }),
    account('get', '/api/v1/account/calls', {
      operationId: 'listAccountCalls',
      summary: 'List asynchronous calls (owner)',
      description: "The account's asynchronous calls, newest first, as `GET /api/v1/calls` lists them: what the dashboard shows.",
      parameters: PAGE_PARAMETERS,
      ok: answer('A page of calls.', 'CallPage'),
      codes: ['validation_failed'],
    }),
  ];
}
