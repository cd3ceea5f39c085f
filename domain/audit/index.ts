//! The audit log (domain/audit/): who changed what on an account, a hash chain per account. What an
//! entry is (`entries.ts`), its append and the drafts left behind (`log.ts`), the chain read (`reads.ts`).
export {
  AUDIT_ACTIONS,
  SERVICE_ACTOR,
  accountDraft,
  auditDraft,
  auditView,
  changesOf,
  creationDrafts,
  deletionDraft,
  type AuditAction,
  type AuditContext,
  type AuditDraft,
  type AuditEntryDoc,
} from './entries.js';
export { createAuditLog, type AuditLog } from './log.js';
