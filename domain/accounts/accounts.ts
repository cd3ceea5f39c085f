//! Accounts and their credentials: opening an account, issuing and revoking API keys.
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from 'mongodb';
import { newCredential } from './credentials.js';
import { createEventRecorder, newEvent, type EventSink } from '../events/index.js';
import { newId } from '../../lib/ids.js';
import { collections, insertIfAbsent } from '../../lib/mongo.js';
import { Credits, Id, KeyPrefix, Nullable, NullableTimestamp, Timestamp } from '../../lib/schema-types.js';
import type { AccountDoc, AccountPlan, CredentialDoc, CredentialKind, KeyMaker } from '../account-documents.js';
import { KEY_SETTINGS, KeySettingsView, keySettingsView, settingsUpdate, spendMonth, type KeySettingsInput } from './key-settings.js';
import {
  SERVICE_ACTOR,
  auditDraft,
  changesOf,
  createAuditLog,
  creationDrafts,
  type AuditContext,
  type AuditLog,
  type AuditDraft,
} from '../audit/index.js';

/** What an API key's entries in the audit log show of it: its name and settings. */
const AUDITED_KEY_FIELDS = ['name', ...KEY_SETTINGS] as const;
import { newAccountDoc, welcomeGrantId } from '../ledger/index.js';

export interface IssuedCredential {
  id: string;
  name: string | null;
  prefix: string;
  /** The credential itself: shown once, never stored. */
  key: string;
  createdAt: Date;
}

/** What every answer about a key shows of it, the new key's included. */
export const ApiKeyFields = {
  id: Id('key', 'Key id.'),
  name: Nullable(Type.String({ description: 'Your label for the key.' })),
  prefix: KeyPrefix,
  createdAt: Timestamp('When the key was created.'),
};

/** A key as the account API shows it (its maker is the API's to add): its type, and the `ApiKey` schema's fields. */
export const ApiKeyView = Type.Object({
  ...ApiKeyFields,
  lastUsedAt: NullableTimestamp('About when the key last authenticated a call (updated at most once a minute); null if never.'),
  lastUsedIp: Nullable(Type.String({ description: 'The address that use came from; null if never.' })),
  revokedAt: NullableTimestamp('When the key was revoked; null while it works.'),
  ...KeySettingsView.properties,
  spentThisMonth: Credits('Credits the key spent this calendar month (UTC), calls still running included; refunded calls are not counted.'),
});
export type ApiKeyView = Static<typeof ApiKeyView>;

/** A key as the account API shows it; `spentThisMonth` from the account's `keySpend` when given. */
export function publicKey(doc: CredentialDoc, keySpend?: AccountDoc['keySpend'], now = Date.now()): ApiKeyView {
  return {
    id: doc._id,
    name: doc.name,
    prefix: doc.prefix,
    createdAt: doc.createdAt,
    lastUsedAt: doc.lastUsedAt,
    lastUsedIp: doc.lastUsedIp ?? null,
    revokedAt: doc.revokedAt,
    ...keySettingsView(doc),
    spentThisMonth: keySpend?.[doc._id]?.[spendMonth(now)] ?? 0,
  };
}

/** Who made a credential, from who is acting: a member, the owner by their token's prefix, the operator; the service records no maker. */
export function makerOf(audit: AuditContext | undefined): KeyMaker | undefined {
  const actor = audit?.actor;
  if (actor?.type === 'user' && actor.userId) return { type: 'user', userId: actor.userId };
  if (actor?.type === 'owner' && actor.credential) return { type: 'owner_token', prefix: actor.credential };
  if (actor?.type === 'operator') return { type: 'operator' };
  return undefined;
}

type OpenOnceFields = { id: string; name?: string | null; email?: string | null; credits: number; plan?: AccountPlan };

/**
 * Opens the account `id` with its welcome grant, without credentials (a person's, managed
 * through sessions). Safe to repeat with the same id: what was written is left as it is, so a
 * step that died half-way is finished by running it again.
 */
async function openAccountOnce(db: Db, auditLog: AuditLog, fields: OpenOnceFields, audit: AuditContext): Promise<AccountDoc> {
  const { accounts, grants } = collections(db);
  const existing = await accounts.findOne({ _id: fields.id });
  if (existing) return existing;
  const now = new Date();
  const account = newAccountDoc({
    id: fields.id,
    name: fields.name,
    email: fields.email,
    credits: fields.credits,
    now,
    plan: fields.plan,
  });
  // The record first: an account never holds credits of a grant with no record.
  if (fields.credits > 0) {
    // The welcome grant's audit entry, written with the account that holds it.
    const changes = {
      amount: [null, fields.credits],
      reason: [null, 'welcome'],
      expiresAt: [null, null],
    } satisfies AuditDraft['changes'];
    account.auditDrafts = [
      auditDraft(audit, account._id, 'credits.granted', { type: 'grant', id: welcomeGrantId(account._id) }, changes, now),
    ];
    await insertIfAbsent(grants, {
      _id: welcomeGrantId(account._id),
      accountId: account._id,
      amount: fields.credits,
      reason: 'welcome',
      expiresAt: null,
      idempotencyKey: null,
      createdAt: now,
      appliedAt: now,
      balanceAfter: fields.credits,
      expiredAt: null,
    });
  }
  await insertIfAbsent(accounts, account);
  await auditLog.flush('account', account._id);
  return (await accounts.findOne({ _id: account._id })) ?? account;
}

export function createAccounts(db: Db, onEvent?: EventSink) {
  const { accounts, credentials } = collections(db);
  const record = createEventRecorder(db, onEvent);
  const auditLog = createAuditLog(db);

  async function issue(
    accountId: string,
    kind: CredentialKind,
    name: string | null,
    settings: KeySettingsInput = {},
    audit?: AuditContext,
  ): Promise<IssuedCredential & { doc: CredentialDoc }> {
    const cred = newCredential(kind);
    const id = newId(kind === 'api_key' ? 'key' : 'own');
    const shown = { name, ...settingsUpdate(settings).$set };
    const createdBy = makerOf(audit);
    const doc: CredentialDoc = {
      ...(createdBy ? { createdBy } : {}),
      ...shown,
      // The entry is written with the key (domain/audit/log.ts): never the key itself or its digest.
      ...creationDrafts(
        audit,
        accountId,
        kind === 'api_key' ? 'api_key.created' : 'owner_token.created',
        { type: kind, id },
        { ...shown, prefix: cred.prefix },
        ['prefix', ...AUDITED_KEY_FIELDS],
      ),
      _id: id,
      accountId,
      kind,
      name,
      prefix: cred.prefix,
      digest: cred.digest,
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await credentials.insertOne(doc);
    if (audit) await auditLog.flush('key', doc._id);
    return { id: doc._id, name, prefix: doc.prefix, key: cred.secret, createdAt: doc.createdAt, doc };
  }

  return {
    /**
     * Opens an account with its welcome grant (`credits`, never expiring) and, when given, its plan,
     * an owner token and a first API key (the operator's accounts, for scripts).
     */
    async open(fields: { name?: string; email?: string; credits: number; plan?: AccountPlan }, audit: AuditContext = SERVICE_ACTOR) {
      const account = await this.openOnce({ id: newId('acc'), ...fields }, audit);
      const ownerToken = await issue(account._id, 'owner_token', 'dashboard', {}, audit);
      const { doc: _, ...apiKey } = await this.createKey(account._id, 'default', {}, audit);
      return { account, ownerToken: ownerToken.key, apiKey };
    },

    /**
     * Opens the account `id` with its welcome grant, without credentials (a person's, managed
     * through sessions). Safe to repeat with the same id (`openAccountOnce`).
     */
    openOnce: (fields: OpenOnceFields, audit: AuditContext = SERVICE_ACTOR): Promise<AccountDoc> =>
      openAccountOnce(db, auditLog, fields, audit),

    get: (accountId: string) => accounts.findOne({ _id: accountId }),

    /** Issues an API key, with its settings when given (checked by the caller), and records `api_key.created`. */
    async createKey(accountId: string, name: string | null, settings: KeySettingsInput, audit: AuditContext) {
      const key = await issue(accountId, 'api_key', name, settings, audit);
      await record(newEvent(accountId, 'api_key.created', { keyId: key.id, name: key.name, prefix: key.prefix }));
      return key;
    },

    listKeys: (accountId: string) => credentials.find({ accountId, kind: 'api_key' }).sort({ createdAt: -1 }).toArray(),

    /** What each key of the account spent per month (the ledger's `keySpend`). */
    keySpend: async (accountId: string) => (await accounts.findOne({ _id: accountId }, { projection: { keySpend: 1 } }))?.keySpend ?? {},

    /**
     * Changes a working key's name and settings (checked by the caller). The key before and after
     * (for its credential's cache and the record of what changed); null when there is no such
     * working key.
     */
    async updateKey(
      accountId: string,
      keyId: string,
      input: KeySettingsInput,
      audit: AuditContext,
    ): Promise<{ before: CredentialDoc; after: CredentialDoc } | null> {
      const { $set, $unset } = settingsUpdate(input);
      for (;;) {
        const before = await credentials.findOne({ _id: keyId, accountId, kind: 'api_key', revokedAt: null });
        if (!before) return null;
        // What the update makes of it: the same change applied to what it replaces.
        const after: CredentialDoc = { ...before, ...$set };
        for (const field of Object.keys($unset)) delete (after as unknown as Record<string, unknown>)[field];
        const changes = changesOf(before as never, after as never, AUDITED_KEY_FIELDS);
        if (Object.keys(changes).length === 0) return { before, after: before };
        // Pinned to what the entry says it was: a concurrent change makes this one read again.
        const pins: Record<string, unknown> = {};
        for (const field of AUDITED_KEY_FIELDS) pins[field] = before[field] === undefined ? { $exists: false } : before[field];
        const { matchedCount } = await credentials.updateOne(
          { _id: keyId, accountId, revokedAt: null, ...pins },
          {
            ...(Object.keys($set).length ? { $set } : {}),
            ...(Object.keys($unset).length ? { $unset } : {}),
            $push: { auditDrafts: auditDraft(audit, accountId, 'api_key.updated', { type: 'api_key', id: keyId }, changes) },
          },
        );
        if (matchedCount === 0) continue;
        await auditLog.flush('key', keyId);
        return { before, after };
      }
    },

    /**
     * Revokes an API key. Only the request that flips `revokedAt` records `api_key.revoked`,
     * so the event fires once however often revocation is requested. Null when no such key.
     */
    async revokeKey(accountId: string, keyId: string, audit: AuditContext): Promise<{ doc: CredentialDoc; digest: string } | null> {
      const now = new Date();
      const flipped = await credentials.findOneAndUpdate(
        { _id: keyId, accountId, kind: 'api_key', revokedAt: null },
        {
          $set: { revokedAt: now },
          $push: {
            auditDrafts: auditDraft(audit, accountId, 'api_key.revoked', { type: 'api_key', id: keyId }, { revokedAt: [null, now] }, now),
          },
        },
        { returnDocument: 'after' },
      );
      if (flipped) {
        await auditLog.flush('key', keyId);
        await record(newEvent(accountId, 'api_key.revoked', { keyId, name: flipped.name, prefix: flipped.prefix }));
        return { doc: flipped, digest: flipped.digest };
      }
      const existing = await credentials.findOne({ _id: keyId, accountId, kind: 'api_key' });
      return existing ? { doc: existing, digest: existing.digest } : null;
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
