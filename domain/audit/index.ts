//! The audit log (domain/audit/): who changed what on an account, a hash chain per account.
export {
  AUDIT_ACTIONS,
  SERVICE_ACTOR,
  auditDraft,
  auditView,
  changesOf,
  createAuditLog,
  type AuditAction,
  type AuditContext,
  type AuditDraft,
  type AuditEntryDoc,
  type AuditLog,
} from './log.js';
