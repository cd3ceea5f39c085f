//! The audit log: `GET /api/v1/account/audit-log` (owner token; JSON pages or a CSV export),
//! `GET /api/v1/account/audit-log/verify` (walks the account's hash chain) and
//! `GET /api/v1/admin/audit-log` (operator, every account).
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { AUDIT_ACTIONS, auditView, type AuditEntryDoc, type AuditLog } from '../../domain/audit/index.js';
import { ServiceError } from '../../contracts/errors.js';
import { requireAdmin, type Authenticator } from '../auth.js';
import { decodeCursor, encodeCursor, parseLimit, queryChoice } from '../paging.js';

/** The columns of the CSV export: JSON-valued ones (actor, target, changes) as JSON text. */
export const CSV_COLUMNS = [
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

const parseAction = (raw: unknown) => queryChoice(raw, AUDIT_ACTIONS, 'action', 'an audit action');

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
  const limit = parseLimit(ctx.query.limit);
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
