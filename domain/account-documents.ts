//! The documents of an account and its money: the account (balance, lots, holds, outbox), its
//! ledger, grants and plan, its credentials and link secrets, its events and its audit chain.
import type { Collection } from 'mongodb';

declare module '../lib/mongo.js' {
  /** Each collection of this file's documents (lib/mongo.ts names them). */
  interface Collections {
    accounts: Collection<AccountDoc>;
    credentials: Collection<CredentialDoc>;
    ledger: Collection<LedgerEntry>;
    events: Collection<EventDoc>;
    grants: Collection<GrantDoc>;
    plans: Collection<PlanDoc>;
    auditLog: Collection<AuditEntryDoc>;
    linkSecrets: Collection<LinkSecretDoc>;
  }
}

export interface Hold {
  cost: number;
  tool: string;
  at: Date;
  /** The grants the cost was taken from (grant id -> credits); absent on holds older than grants. */
  from?: Record<string, number>;
  /** The API key that made the call and the month (`YYYY-MM`) its `keySpend` counted the cost in. */
  keyId?: string;
  month?: string;
}

/** What is left of one grant inside its account's document: spendable credits and when they lapse. */
export interface Lot {
  remaining: number;
  /** Null: never expires (spent last). */
  expiresAt: Date | null;
  /**
   * Set when what was left lapsed. The lot stays in the document for good, so a grant's presence
   * here says it was applied, and a retried grant can never apply it twice.
   */
  expiredAt?: Date;
  /**
   * Credits of a purchase's grant taken back because its payment was refunded / disputed
   * (domain/ledger/grant-voids.ts): each void is pinned to these, so it is applied once. Absent: none.
   */
  voidedByRefund?: number;
  voidedByDispute?: number;
}

/** A domain event waiting in an account's outbox until it is copied to `events`. */
export interface OutboxEvent {
  id: string;
  event: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

export interface AccountDoc {
  _id: string;
  name: string | null;
  email: string | null;
  /** Available credits: what 402 is judged on. Holds are already taken out of it. */
  balance: number;
  /** Charged credits: grants minus committed calls (in-flight holds still count as owned). */
  chargedBalance: number;
  holds: Record<string, Hold>;
  /**
   * What is left of each unexpired grant, by grant id: `balance` is always their sum. Kept in the
   * account's document so that reserve, commit and refund stay single-document updates.
   * Absent on accounts opened before grants were records (read as one never-expiring lot).
   */
  lots?: Record<string, Lot>;
  /**
   * Counts changes to which lots exist and when they lapse (a grant applied, a lot expired), not to
   * what is left of them: a reserve that chose its lots from an earlier read pins it (absent: 0).
   */
  lotsVersion?: number;
  /**
   * Credits each API key spent (or holds) per calendar month (UTC): key id -> `YYYY-MM` -> credits.
   * Counted by the reserve's update and given back by a refund's, so a key's monthlyCreditLimit is
   * guarded exactly as the balance is. Absent until a key's call reserves.
   */
  keySpend?: Record<string, Record<string, number>>;
  /**
   * Audit entries of changes to the account (a grant applied, a plan change), written with the
   * change, until they are in the chain.
   */
  auditDrafts?: AuditDraft[];
  /**
   * Audit entries of deletions (a webhook endpoint's, a destination's), written before the deletion: appended once
   * the target is gone, dropped if it is still there a minute later (the deletion never happened).
   */
  auditDeletions?: AuditDraft[];
  /** Usage-ledger entries decided by an update of this document, copied to `ledger` after it (like `outbox`). */
  entries?: LedgerEntry[];
  /** The account's plan and where its monthly allowance stands (domain/plans/allowances.ts). */
  plan?: AccountPlan;
  /** Armed while `credits.low` may fire: set by a grant that lifts the charged balance to the threshold or more. */
  lowArmed: boolean;
  /**
   * Auto-recharge's threshold while it is on (domain/billing/auto-recharge.ts): the commit that
   * takes the charged balance below it, armed, hands the account's recharge on (settlement.ts).
   * Kept here so that the commit's own update reads it back: a call adds no read for it.
   */
  rechargeBelow?: number;
  /** Armed while a crossing may start a recharge: disarmed by the crossing, armed again once that recharge settles. */
  rechargeArmed?: boolean;
  /** A recharge refused for the month's cap arms again at this time (the next month's start). */
  rechargeArmsAt?: Date;
  /** Set by the crossing that disarmed the latch, cleared once the recharge workflow took it up: older ones are handed on again. */
  rechargeDueAt?: Date;
  /** Armed while `credits.exhausted` may fire: set by a grant that lifts the charged balance above zero. */
  exhaustedArmed: boolean;
  outbox: OutboxEvent[];
  createdAt: Date;
  /** Members must sign in through this identity provider to act on the account (domain/membership/sign-in-policy.ts); absent: any way. */
  signInPolicy?: SignInPolicy;
}

/** How the members of an account must sign in to act on it. */
export interface SignInPolicy {
  /** The id of an OIDC provider of OIDC_PROVIDERS. */
  requiredProvider: string;
}

export interface AccountPlan {
  id: string;
  /** When the account joined a plan: its anniversary is this day of the month (the last day of shorter months). */
  anchor: Date;
  /** Index of the next period whose allowance is still to grant (0 is the period starting at `anchor`). */
  nextPeriod: number;
  /** Start of that period: the allowance is due then. Indexed: the allowance run finds due accounts by it. */
  nextAllowanceAt: Date;
  /** Plan changes so far: keys a change's prorated grant. */
  changes: number;
}

export interface LedgerEntry {
  /** The call's request id (its workflow id); for an expiry `exp_<grantId>` or `exp_<requestId>`. */
  _id: string;
  accountId: string;
  /** The tool called; null for an expiry. */
  tool: string | null;
  /** Credits charged: the tool's cost, or 0 when refunded; for an expiry, the credits that lapsed. */
  credits: number;
  outcome: 'charged' | 'refunded' | 'expired';
  /** For an expiry: the grant whose credits lapsed. */
  grantId?: string;
  /**
   * The API key that made the call (absent for calls before keys were recorded, and expiries of
   * grants); for a monitor's run (`via: monitor`), the monitor, whose monthly spending counts it as a key's does.
   */
  keyId?: string;
  /** `mcp` for a call made over MCP, `monitor` for a monitor's run; absent for REST calls (and batches, render links). */
  via?: 'mcp' | 'monitor';
  at: Date;
}

export type GrantKind = 'welcome' | 'purchase' | 'monthly_allowance' | 'manual_adjustment' | 'recharge';

/** One grant of credits: its record, kept for good. What is left of it lives in its account's `lots`. */
export interface GrantDoc {
  _id: string;
  accountId: string;
  amount: number;
  reason: GrantKind;
  expiresAt: Date | null;
  /** The operator's payment id (or the allowance period's key): a repeat grants nothing new. */
  idempotencyKey: string | null;
  createdAt: Date;
  /** Set once the credits are in the account's document; a record without it was never granted. */
  appliedAt: Date | null;
  /** The available balance right after it was applied: what a repeat of the same key answers. */
  balanceAfter: number | null;
  /** Set once what was left of it lapsed (the credits: its `expired` entries in the usage ledger). */
  expiredAt: Date | null;
  /** For an allowance: the period's start. */
  periodStart?: Date;
}

/** A plan: the allowance an account on it gets each month, and what happens to the unused part. */
export interface PlanDoc {
  _id: string;
  name: string;
  monthlyAllowance: number;
  rollover: 'none' | 'keep';
  createdAt: Date;
  updatedAt: Date;
}

export interface EventDoc {
  _id: string;
  accountId: string;
  event: string;
  createdAt: Date;
  data: Record<string, unknown>;
  /** Set once the event was handed to every webhook endpoint it goes to (domain/webhooks/fanout.ts); never written as null, only queried so. */
  fannedOutAt?: Date | null;
  /** The W3C traceparent of what caused it, when that was traced: its deliveries' traces link to it. */
  traceparent?: string;
}

/** A change to an account as the audit log records it (domain/audit/log.ts): never a secret. */
export interface AuditDraft {
  id: string;
  accountId: string;
  at: Date;
  /** Who: an owner token (by its prefix), the operator, the service, or a signed-in person (`userId`, credential null). */
  actor: { type: 'owner' | 'operator' | 'service' | 'user'; credential: string | null; userId?: string };
  ip: string | null;
  userAgent: string | null;
  /** `api_key.created`, `webhook_endpoint.deleted`, ... */
  action: string;
  target: { type: string; id: string };
  /** `[before, after]` of each field the change changed. */
  changes: Record<string, [unknown, unknown]>;
}

/** An entry of an account's audit chain. */
export interface AuditEntryDoc extends Omit<AuditDraft, 'id'> {
  _id: string;
  /** Its place in the account's chain, from 1. Unique per account: two appends cannot take the same place. */
  seq: number;
  /** The hash of the entry before it (`''` for the first). */
  prevHash: string;
  /** Hex SHA-256 of prevHash followed by the entry's canonical JSON (domain/audit/log.ts). */
  hash: string;
}

export type CredentialKind = 'api_key' | 'owner_token';

export interface CredentialDoc {
  _id: string;
  accountId: string;
  kind: CredentialKind;
  name: string | null;
  /** First 12 characters, for display. */
  prefix: string;
  /** Hex SHA-256 of the whole credential; the credential itself is never stored. */
  digest: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The client address of that use (written with lastUsedAt). Absent before keys kept it. */
  lastUsedIp?: string | null;
  revokedAt: Date | null;
  // An API key's settings (domain/accounts/key-settings.ts): each absent when not set.
  /** Tool names and group names the key may call. */
  tools?: string[];
  /** After it the key answers 401 `reason: "expired"`. */
  expiresAt?: Date;
  /** Calls per second for this key (burst twice that), at most the account's. */
  rateLimit?: number;
  /** Credits the key may spend per calendar month (UTC), held in the account's `keySpend`. */
  monthlyCreditLimit?: number;
  /** IPv4/IPv6 CIDRs the key may be used from. */
  allowedIps?: string[];
  /** Who made it (absent on keys made before keys recorded it): shown as the key's maker. */
  createdBy?: KeyMaker;
  /** Audit entries of changes to it, written with the change, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

/** Who made a credential: a signed-in member, the owner with an owner token (by its prefix), or the operator. */
export type KeyMaker = { type: 'user'; userId: string } | { type: 'owner_token'; prefix: string } | { type: 'operator' };

/** A render link signing secret (`lks_...`): the secret itself only sealed with SECRET_KEY, bound to its id. */
export interface LinkSecretDoc {
  _id: string;
  accountId: string;
  secretSealed: string;
  createdAt: Date;
  /** Set when the owner retires it: its links stop working. */
  retiredAt: Date | null;
  /** Audit entries of its creation and retirement, written with each, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}
