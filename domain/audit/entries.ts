//! An audit entry: who changed what, from where (`AuditContext`), the actions an entry can record,
//! its draft written with the change it records, how the API shows it, and its hash:
//! SHA-256(previous entry's hash + this entry's canonical JSON).
import { canonicalJson } from '../../lib/canonical-json.js';
import { newId, sha256Hex } from '../../lib/ids.js';
import type { AuditDraft, AuditEntryDoc } from '../account-documents.js';

export type { AuditDraft, AuditEntryDoc } from '../account-documents.js';

/** Who made a change, from where: what every entry records beside the change itself. */
export interface AuditContext {
  actor: AuditDraft['actor'];
  ip: string | null;
  userAgent: string | null;
}

/** The service acting on its own (a workflow, a schedule). */
export const SERVICE_ACTOR: AuditContext = { actor: { type: 'service', credential: null }, ip: null, userAgent: null };

/** What an entry can record. */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'owner_token.created',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.enabled',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.previous_secret_ended',
  'credits.granted',
  'account.plan_changed',
  'link_secret.created',
  'link_secret.retired',
  'destination.created',
  'destination.deleted',
  // Billing (domain/billing/): the owner's checkout and settings, what Stripe's events did.
  'purchase.created',
  'purchase.paid',
  'purchase.failed',
  'purchase.refunded',
  'purchase.disputed',
  'purchase.dispute_closed',
  'auto_recharge.updated',
  'auto_recharge.disabled',
  'recharge.succeeded',
  'recharge.failed',
  'user.signed_in',
  'user.locked_out',
  'user.password_changed',
  'user.passkey_added',
  'user.passkey_removed',
  'session.ended',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.revoked',
  'account.ownership_transferred',
  'account.sign_in_policy_changed',
  // The authorization server (domain/oauth/): a member let an agent act on the account, or it was ended.
  'oauth_app.authorized',
  'oauth_app.revoked',
  // Monitors (domain/monitors/): made, changed (paused and resumed included), deleted.
  'monitor.created',
  'monitor.updated',
  'monitor.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The previous hash of an account's first entry. */
export const GENESIS_HASH = '';

/** A draft of an entry, to be written with its change (`$push: { auditDrafts: draft }`). */
export function auditDraft(
  context: AuditContext,
  accountId: string,
  action: AuditAction,
  target: AuditDraft['target'],
  changes: AuditDraft['changes'],
  now = new Date(),
): AuditDraft {
  return {
    id: newId('aud'),
    accountId,
    at: now,
    actor: context.actor,
    ip: context.ip,
    userAgent: context.userAgent,
    action,
    target,
    changes,
  };
}

/** A draft of a change to the account itself (its plan, its owner, its sign-in policy): the account is its target. */
export function accountDraft(
  context: AuditContext,
  accountId: string,
  action: AuditAction,
  changes: AuditDraft['changes'],
  now = new Date(),
): AuditDraft {
  return auditDraft(context, accountId, action, { type: 'account', id: accountId }, changes, now);
}

/** `[before, after]` of each field that differs (compared as JSON); `fields` limits which are looked at. */
export function changesOf(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): AuditDraft['changes'] {
  const changes: AuditDraft['changes'] = {};
  for (const field of fields) {
    const [b, a] = [before[field] ?? null, after[field] ?? null];
    if (canonicalJson(b) !== canonicalJson(a)) changes[field] = [b, a];
  }
  return changes;
}

/**
 * What a document made with its creation's entry carries (`auditDrafts`, appended once it is
 * written): the entry shows `fields` of `after`; nothing without a `context` (the service's own).
 */
export function creationDrafts(
  context: AuditContext | undefined,
  accountId: string,
  action: AuditAction,
  target: AuditDraft['target'],
  after: Record<string, unknown>,
  fields: readonly string[],
): { auditDrafts?: AuditDraft[] } {
  return context ? { auditDrafts: [auditDraft(context, accountId, action, target, changesOf({}, after, fields))] } : {};
}

/** The draft of a deletion (domain/audit/log.ts, `deleting`): each field of `before` going to null. */
export function deletionDraft(
  context: AuditContext,
  accountId: string,
  action: AuditAction,
  target: AuditDraft['target'],
  before: Record<string, unknown>,
): AuditDraft {
  return auditDraft(context, accountId, action, target, changesOf(before, {}, Object.keys(before)));
}

/** An entry as the API answers it and as an export holds it: what is hashed, plus `prevHash` and `hash`. */
export function auditView(doc: AuditEntryDoc) {
  return { ...hashedPart(doc), prevHash: doc.prevHash, hash: doc.hash };
}

/** What the hash covers: the entry as shown, dates as ISO 8601 text. */
export function hashedPart(doc: AuditDraft | AuditEntryDoc) {
  const id = '_id' in doc ? doc._id : doc.id;
  return {
    id,
    at: new Date(doc.at).toISOString(),
    actor: doc.actor,
    ip: doc.ip,
    userAgent: doc.userAgent,
    action: doc.action,
    target: doc.target,
    changes: JSON.parse(JSON.stringify(doc.changes)) as AuditDraft['changes'],
  };
}

/** The hash of an entry shown as `view` after an entry whose hash was `prevHash` (what `verify` and a customer recompute). */
export function entryHash(prevHash: string, view: ReturnType<typeof hashedPart>): string {
  return sha256Hex(prevHash + canonicalJson(view));
}
