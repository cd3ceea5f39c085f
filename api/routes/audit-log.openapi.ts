//! The OpenAPI operations of the account's audit log and the operator's (`api/routes/audit-log.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { AUDIT_ACTIONS } from '../../domain/audit/index.js';
import { LIMIT_DEFAULT, LIMIT_MAX } from '../paging.js';
import { CSV_COLUMNS } from './audit-log.js';
import { json } from '../docs/openapi-parts.js';
import { ADMIN, answer, OWNER, plain, resource, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

const limitParam = {
  name: 'limit',
  in: 'query',
  required: false,
  description: 'Entries per page, newest first.',
  schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT },
};
const cursorParam = {
  name: 'cursor',
  in: 'query',
  required: false,
  description: "The previous page's `nextCursor`.",
  schema: { type: 'string' },
};
const actionParam = {
  name: 'action',
  in: 'query',
  required: false,
  description: 'Only entries of this action.',
  schema: { type: 'string', enum: [...AUDIT_ACTIONS] },
};

/** The operations this router serves, as the OpenAPI document lists them. */
export function auditLogOperations(): RouteOperation[] {
  const account = resource('account', OWNER);
  const operator = resource('operator', ADMIN);
  return [
    account('get', '/api/v1/account/audit-log', {
      operationId: 'listAuditLog',
      summary: 'List or export the audit log',
      description:
        'Every change to the account (keys created, changed and revoked; webhook endpoints created, changed, deleted, enabled and their secrets rotated; grants; plan changes; link secrets created and retired; destinations created and deleted), ' +
        "who made it (the owner by their token's prefix, the operator, the service: a plan's allowance each period), from which address and user agent, and what changed (`[before, after]` per field; never a secret). " +
        'Each entry is written as a draft by the same single-document update as its change (of the key, the endpoint, the link secret, the destination, or the account for a grant or a plan change) and appended to the chain just after; ' +
        'a draft left by a process that died in between is appended by the next read or verify, or by the sweeper, so no change goes unrecorded. ' +
        "Newest first (in the order the chain holds them: reversed, a page verifies as it is); page with `cursor`. Each entry carries `hash` = SHA-256 of the previous entry's hash followed by the entry's canonical JSON (see `verify`). " +
        `With \`Accept: text/csv\` the whole log comes as one CSV file, oldest first: \`${CSV_COLUMNS.join(',')}\`. Kept AUDIT_RETENTION_DAYS (400 by default).`,
      parameters: [limitParam, cursorParam, actionParam],
      ok: withRateLimit('A page of entries, or the CSV file.', {
        ...json(ref('AuditLogPage')),
        'text/csv': { schema: { type: 'string' }, examples: { example: { value: `${CSV_COLUMNS.join(',')}\r\n` } } },
      }),
      codes: ['validation_failed'],
    }),
    account('get', '/api/v1/account/audit-log/verify', {
      operationId: 'verifyAuditLog',
      summary: 'Verify the audit log',
      description:
        "Walks the account's chain oldest first and recomputes each hash: `ok` when every entry's hash is that of its content after its predecessor's hash; " +
        'otherwise `firstBadEntry` names the first entry that was changed, or that follows one removed.',
      ok: answer('What the walk found.', 'AuditVerification'),
    }),
    operator('get', '/api/v1/admin/audit-log', {
      operationId: 'listAuditLogAdmin',
      summary: 'List the audit log of every account',
      description: 'The same entries, of every account or of `accountId`, newest first, each with its `accountId`.',
      parameters: [
        { name: 'accountId', in: 'query', required: false, description: 'Only this account (`acc_...`).', schema: { type: 'string' } },
        limitParam,
        cursorParam,
        actionParam,
      ],
      ok: plain('A page of entries.', json(ref('AuditLogPage'))),
      codes: ['validation_failed'],
    }),
  ];
}
