//! The audit log: `GET /api/v1/account/audit-log` (owner token; JSON pages or a CSV export),
//! `GET /api/v1/account/audit-log/verify` (walks the account's hash chain) and
//! `GET /api/v1/admin/audit-log` (operator, every account).
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { AUDIT_ACTIONS, auditView, type AuditEntryDoc, type AuditLog } from '../../domain/audit/index.js';
import { ServiceError } from '../../contracts/errors.js';
import { requireAdmin, type Authenticator } from '../auth.js';
import { decodeCursor, encodeCursor, parseLimit } from '../paging.js';
import { json } from '../docs/openapi-parts.js';
import { admin, operation, owner, plain, withRateLimit, ADMIN_CODES, OWNER_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** The columns of the CSV export: JSON-valued ones (actor, target, changes) as JSON text. */
const CSV_COLUMNS = [
  'id',
  'at',
  'actorType',
  'actorCredential',
  'actorUserId',
  'ip',
  'userAgent',
  'action',
  'targetType',
  'targetId',
  'changes',
  'prevHash',
  'hash',
] as const;

function parseAction(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !(AUDIT_ACTIONS as readonly string[]).includes(raw)) {
    throw new ServiceError('validation_failed', `action must be one of ${AUDIT_ACTIONS.join(', ')}.`, {
      errors: [{ field: 'query:action', message: 'is not an audit action' }],
    });
  }
  return raw;
}

const csvField = (value: unknown) => {
  const text = value == null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** Entries oldest first as CSV (RFC 4180): the chain's order, so it verifies row after row. */
function auditCsv(rows: AuditEntryDoc[]): string {
  const lines: string[] = [CSV_COLUMNS.join(',')];
  for (const doc of rows) {
    const e = auditView(doc);
    lines.push(
      [
        e.id,
        e.at,
        e.actor.type,
        e.actor.credential,
        e.actor.userId,
        e.ip,
        e.userAgent,
        e.action,
        e.target.type,
        e.target.id,
        e.changes,
        e.prevHash,
        e.hash,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A page of entries; the operator's (`operator`) name each entry's account. */
async function page(ctx: Context, log: AuditLog, accountId: string | undefined, operator: boolean) {
  const limit = parseLimit(ctx.query.limit, DEFAULT_LIMIT, MAX_LIMIT);
  const action = parseAction(ctx.query.action);
  const before = typeof ctx.query.cursor === 'string' ? decodeCursor(ctx.query.cursor) : undefined;
  const { items, more } = await log.list({ accountId, action, limit, before });
  const last = items.at(-1);
  return {
    items: items.map((doc) => (operator ? { accountId: doc.accountId, ...auditView(doc) } : auditView(doc))),
    nextCursor: more && last ? encodeCursor(last.at, last._id) : null,
  };
}

export function auditLogRoutes(deps: { auth: Authenticator; rateLimit: Middleware; adminToken?: string; auditLog: AuditLog }): Router {
  const router = new Router();
  const ownerOnly = [deps.auth.require('owner_token'), deps.rateLimit];

  router.get('/api/v1/account/audit-log', ...ownerOnly, async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    if (ctx.accepts('application/json', 'text/csv') === 'text/csv') {
      const rows = await deps.auditLog.all(accountId, parseAction(ctx.query.action));
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="audit-log-${accountId}.csv"`);
      ctx.body = auditCsv(rows);
      return;
    }
    ctx.body = await page(ctx, deps.auditLog, accountId, false);
  });

  router.get('/api/v1/account/audit-log/verify', ...ownerOnly, async (ctx) => {
    ctx.body = await deps.auditLog.verify(ctx.state.principal.accountId);
  });

  router.get('/api/v1/admin/audit-log', requireAdmin(deps.adminToken), async (ctx) => {
    const accountId = ctx.query.accountId;
    if (accountId !== undefined && (typeof accountId !== 'string' || !/^acc_[0-9A-Za-z]{1,64}$/.test(accountId))) {
      throw new ServiceError('validation_failed', 'accountId must be an account id (acc_...).', {
        errors: [{ field: 'query:accountId', message: 'is not an account id' }],
      });
    }
    ctx.body = await page(ctx, deps.auditLog, accountId, true);
  });

  return router;
}

const limitParam = {
  name: 'limit',
  in: 'query',
  required: false,
  description: 'Entries per page, newest first.',
  schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
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
  return [
    operation('get', '/api/v1/account/audit-log', {
      tag: 'account',
      operationId: 'listAuditLog',
      summary: 'List or export the audit log',
      ...owner(),
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
      codes: [...OWNER_CODES, 'validation_failed'],
    }),
    operation('get', '/api/v1/account/audit-log/verify', {
      tag: 'account',
      operationId: 'verifyAuditLog',
      summary: 'Verify the audit log',
      ...owner(),
      description:
        "Walks the account's chain oldest first and recomputes each hash: `ok` when every entry's hash is that of its content after its predecessor's hash; " +
        'otherwise `firstBadEntry` names the first entry that was changed, or that follows one removed.',
      ok: withRateLimit('What the walk found.', json(ref('AuditVerification'))),
      codes: OWNER_CODES,
    }),
    operation('get', '/api/v1/admin/audit-log', {
      tag: 'operator',
      operationId: 'listAuditLogAdmin',
      summary: 'List the audit log of every account',
      ...admin(),
      description: 'The same entries, of every account or of `accountId`, newest first, each with its `accountId`.',
      parameters: [
        { name: 'accountId', in: 'query', required: false, description: 'Only this account (`acc_...`).', schema: { type: 'string' } },
        limitParam,
        cursorParam,
        actionParam,
      ],
      ok: plain('A page of entries.', json(ref('AuditLogPage'))),
      codes: [...ADMIN_CODES, 'validation_failed'],
    }),
  ];
}
