//! What each collection of the service holds: one document type per collection (lib/mongo.ts
//! names the collections and their indexes). Every update of these documents is a single-document
//! one (see lib/mongo.ts).
import type { ObjectId } from 'mongodb';

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
   * (domain/grant-voids.ts): each void is pinned to these, so it is applied once. Absent: none.
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
  /** The account's plan and where its monthly allowance stands (domain/allowances.ts). */
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
  /** Members must sign in through this identity provider to act on the account (domain/teams/sign-in-policy.ts); absent: any way. */
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
  // An API key's settings (domain/key-settings.ts): each absent when not set.
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

/** A member's part in an account (CONTRACT.md "Teams"): what the account routes let them do. */
export type Role = 'owner' | 'admin' | 'developer' | 'billing' | 'viewer';

/** A person (domain/identity/): an address they proved, a password hash and passkeys; a member of accounts. */
export interface UserDoc {
  _id: string;
  /** Normalized (domain/identity/email-address.ts); unique. */
  email: string;
  name: string | null;
  /** Argon2id in PHC form (domain/identity/password-hashing.ts); null for a person without a password. */
  passwordHash: string | null;
  createdAt: Date;
  passwordChangedAt: Date | null;
  lastSignInAt: Date | null;
  /** Audit entries of changes to the person, one per account they are in, until they are in the chains. */
  auditDrafts?: AuditDraft[];
}

/** A user's membership of an account, `_id` `<accountId>:<userId>`. */
export interface MembershipDoc {
  _id: string;
  accountId: string;
  userId: string;
  role: Role;
  joinedAt: Date;
  /** Audit entries of the joining and of role changes, written with them, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

/** How a session was signed in. */
export type SignInMethod = 'password' | 'passkey' | 'verification' | 'password_reset' | 'invitation' | 'oidc';

/** A dashboard session: the cookie holds a random id; only its SHA-256 is here. */
export interface SessionDoc {
  /** The public id (`ses_...`), shown in the session list; never the cookie's value. */
  _id: string;
  /** Hex SHA-256 of the cookie's value; unique. */
  digest: string;
  userId: string;
  /** The account it acts on, and the member's role there (kept in step with the membership). */
  accountId: string;
  role: Role;
  method: SignInMethod;
  /** Method `oidc`: the id of the provider (OIDC_PROVIDERS) that signed the person in. */
  provider?: string;
  createdAt: Date;
  /** The last sign-in that proved who is there (a re-authentication moves it): sensitive changes need it recent. */
  authenticatedAt: Date;
  /** Written at most once a minute: the idle timeout counts from it. */
  lastSeenAt: Date;
  /** The absolute end (SESSION_MAX_DAYS after sign-in). */
  expiresAt: Date;
  endedAt: Date | null;
  ip: string | null;
  userAgent: string | null;
  auditDrafts?: AuditDraft[];
}

/** What a single-use token is for. */
export type TokenPurpose = 'signup' | 'password_reset' | 'invitation';

/** A single-use token mailed in a link: only its digest is stored. */
export interface AuthTokenDoc {
  /** Hex SHA-256 of the token. */
  _id: string;
  purpose: TokenPurpose;
  /** Normalized address it was mailed to. */
  email: string;
  createdAt: Date;
  expiresAt: Date;
  /** Taken by a request working on it; a claim older than a minute that never completed may be taken again. */
  claimedAt: Date | null;
  completedAt: Date | null;
  revokedAt: Date | null;
  /** Sign-up: the name and the password's hash. Reset: the user. Invitation: the account, role and inviter. */
  name?: string | null;
  passwordHash?: string;
  userId?: string;
  accountId?: string;
  role?: Role;
  invitedBy?: string | null;
  /** Invitation: its public id (`inv_...`), by which it is listed and revoked. */
  publicId?: string;
  /** Invitation: its audit entries (created, revoked), written with it, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

/** Failed sign-ins counted for an address (`address:<sha256>`) or a client (`client:<ip>`) in a 15-minute window. */
export interface SigninThrottleDoc {
  _id: string;
  windowStart: Date;
  failures: number;
  lockedUntil: Date | null;
}

/**
 * A request rate's bucket (domain/rate-buckets.ts), `_id` what it limits (an account, a key, a
 * client address): `tat` the time (epoch ms) it would next be full, `ok` whether the last take was allowed.
 */
export interface RateBucketDoc {
  _id: string;
  tat: number;
  ok: boolean;
}

/** A mailbox that has had its welcome grant (`a+x@host` and `a@host` are one): `_id` its key's SHA-256. */
export interface WelcomeMailboxDoc {
  _id: string;
  accountId: string;
  at: Date;
}

/** A WebAuthn credential of a user (a passkey). */
export interface PasskeyDoc {
  /** The credential id, base64url. */
  _id: string;
  userId: string;
  name: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A WebAuthn challenge handed out and not yet answered: single use, for 5 minutes. */
/**
 * A sign-in through an identity provider under way (domain/identity/oidc.ts), single use, for 10
 * minutes: `_id` the SHA-256 of its `state`. The PKCE verifier and the nonce stay here, server-side.
 */
export interface OidcStateDoc {
  _id: string;
  provider: string;
  nonce: string;
  codeVerifier: string;
  /** SHA-256 of the random value in the browser's short-lived cookie: the callback must come from the browser that started. */
  binding: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface WebauthnChallengeDoc {
  /** The challenge, base64url. */
  _id: string;
  purpose: 'registration' | 'authentication';
  /** Registration: the session's user. */
  userId: string | null;
  expiresAt: Date;
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
  /** The API key that made the call (absent for calls before keys were recorded, and expiries of grants). */
  keyId?: string;
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

export interface IdempotencyDoc {
  /** `<accountId>:<sha256(key)>` */
  _id: string;
  accountId: string;
  /** HMAC of tool and body: a repeat must match it. */
  fingerprint: string;
  workflowId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface CallKeyDoc {
  /** The call's request id. */
  _id: string;
  key: Buffer | { buffer: Uint8Array };
  expiresAt: Date;
}

// --- Destinations (domain/destinations/): the account's own buckets for big outputs ---

export interface DestinationDoc {
  /** `dst_...` */
  _id: string;
  accountId: string;
  type: 's3';
  bucket: string;
  /** Key prefix without outer slashes; '' for the bucket's root. */
  prefix: string;
  /** An S3-compatible endpoint's origin; null for AWS S3 in `region`. */
  endpoint: string | null;
  region: string;
  accessKeyId: string;
  /** The secret access key sealed with SECRET_KEY (lib/sealed.ts), bound to the destination id. */
  secretSealed: string;
  createdAt: Date;
  /** Its creation's audit entry, written with it, until it is in the chain. */
  auditDrafts?: AuditDraft[];
}

// --- Webhooks (domain/webhooks/, activities/core/webhooks.ts) ---

export interface WebhookEndpointDoc {
  _id: string;
  accountId: string;
  url: string;
  /** The signing secret sealed with SECRET_KEY (lib/sealed.ts), bound to the endpoint id. */
  secretSealed: string;
  status: 'active' | 'disabled';
  /** Mirror of the count the endpoint's workflow holds (the workflow is the authority). */
  consecutiveFailures: number;
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Event types delivered to it; absent on endpoints registered before they could choose (DEFAULT_EVENT_TYPES then). */
  eventTypes?: string[];
  /** While a rotation's overlap runs: the secret before it, sealed like `secretSealed`. */
  previousSecretSealed?: string | null;
  /** The rotation whose overlap runs: the endpoint's workflow ends it by this id when the window closes. */
  rotation?: { id: string; startedAt: Date; overlapEndsAt: Date } | null;
  /** Audit entries of changes to it, written with the change, until they are in the chain. */
  auditDrafts?: AuditDraft[];
}

export interface WebhookAttemptDoc {
  _id: string;
  endpointId: string;
  accountId: string;
  eventId: string;
  event: string;
  /** 1 for the first attempt of this event at this endpoint. */
  attempt: number;
  attemptedAt: Date;
  /** Response status, or null when no response came (timeout, refused, target not allowed). */
  statusCode: number | null;
  durationMs: number;
  success: boolean;
  error: string | null;
  /** Why this attempt was made, when not for the event's first arrival: the owner asked to replay it, or to recover missed events. */
  trigger?: 'replay' | 'recovery';
}

/** A delivery that ended without reaching the receiver, and why. `_id` is `<endpointId>:<eventId>`. */
export interface WebhookUndeliveredDoc {
  _id: string;
  endpointId: string;
  accountId: string;
  eventId: string;
  event: string;
  reason: string;
  attempts: number;
  endedAt: Date;
}

/** An asynchronous tool call (`Prefer: respond-async`) and, once it ended, its answer, kept 24 h. */
export interface CallDoc {
  /** The call's request id (its workflow id). */
  _id: string;
  accountId: string;
  tool: string;
  status: 'running' | 'succeeded' | 'failed';
  createdAt: Date;
  completedAt: Date | null;
  /** completedAt + 24 h: the answer is served until then, `call_expired` after. */
  expiresAt: Date | null;
  /** Credits charged: the cost when it succeeded, else 0. */
  charged: number;
  /** The tool's output as JSON text, when small enough to keep in the document. */
  output?: string;
  /** The output in GridFS (bucket `call_outputs`) when it is larger. */
  outputFileId?: ObjectId;
  /** A failed call's problem: the same code, detail and members a synchronous call answers. */
  problem?: { code: string; detail: string; extras: Record<string, unknown> };
  /** Set by the sweeper once the answer was dropped. */
  expired?: boolean;
}

/** Counts of a batch's items by status: they always add up to its `total`. */
export interface BatchCounts {
  pending: number;
  running: number;
  succeeded: number;
  failed: number;
  skipped: number;
}

/** A batch (`POST /api/v1/batches`): its items are `batch_items`, run by the account's batch runner. */
export interface BatchDoc {
  /** `bat_...`. */
  _id: string;
  accountId: string;
  tool: string;
  /** The tool's cost per item when the batch was made. */
  cost: number;
  status: 'running' | 'paused' | 'completed' | 'cancelled';
  total: number;
  /** Items handed to the runner so far, in index order: items from `next` on are still pending. */
  next: number;
  /**
   * The counts once the batch completed, counted from its items (`noCounts` until then): while it
   * runs they are counted from the items at each read (domain/batch-progress.ts), never moved here.
   */
  counts: BatchCounts;
  /** Credits charged: the cost of each item that succeeded, set with `counts`. */
  charged: number;
  /**
   * Every item below `below` has ended (which is final), and these are their counts: kept by the
   * reads of a running batch's counts so each read counts only the items above (domain/batch-progress.ts).
   */
  settled?: { below: number; succeeded: number; failed: number; skipped: number };
  onInsufficientCredits: 'stop' | 'wait';
  /** The destination (`dst_...`) each item's file goes to, when the batch names one. */
  destination?: string;
  /** Why pending items are skipped rather than run: the batch was cancelled, or credits ran short under `stop`. */
  stopped?: 'cancelled' | 'insufficient_credits';
  /** When a `wait` batch paused for credits; it gives up (as `stop`) 7 days later. */
  pausedAt?: Date | null;
  createdAt: Date;
  completedAt: Date | null;
  /** The W3C traceparent of the request that made it, when traced: its items' calls are children of it. */
  traceparent?: string;
}

/** One item of a batch: its input until it ran, then its outcome. `_id` is `<batchId>:<index>`. */
export interface BatchItemDoc {
  _id: string;
  batchId: string;
  accountId: string;
  index: number;
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';
  /** Starts of the item so far: a `wait` batch runs an item again (a new call) after a pause for credits. */
  attempt: number;
  /** Set once a call of the item ended and recorded it: its outcome is final. */
  callEnded?: boolean;
  /** Validated input with defaults applied, secret fields removed; dropped once the item ended. */
  input?: Record<string, unknown>;
  /** The tool's secret fields, sealed with SECRET_KEY (lib/sealed.ts); dropped once the item ended. */
  sealed?: string;
  /** The item's call (its workflow id), once it started. */
  requestId?: string;
  /** A succeeded item's output, as the call carries it (small, or a stored output's reference). */
  output?: unknown;
  /** A failed or skipped item's problem: what the call answered, or why it never ran. */
  problem?: { code: string; detail: string; extras: Record<string, unknown> };
  /** Credits charged for the item: the cost when it succeeded, else 0. */
  charged?: number;
  endedAt?: Date;
  /**
   * The index of the item that took this item's slot when it ended (claimed before this item was
   * marked ended, so the slot is never seen free): a retried end starts that one, not another.
   */
  successor?: number;
}

/** gold-price's last good feed answer per source (`metal:gold`, `metal:silver`, `fx`), served when the feed is down. */
export interface MarketQuoteDoc {
  _id: string;
  value: Record<string, unknown>;
  savedAt: Date;
}

/** A change to an account as the audit log records it (domain/audit-log.ts): never a secret. */
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
  /** Hex SHA-256 of prevHash followed by the entry's canonical JSON (domain/audit-log.ts). */
  hash: string;
}

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

/**
 * One stored render of the render cache: `_id` is the account and a digest of the tool and its
 * validated input, so two accounts never share an entry. The image is in the blob store.
 */
export interface RenderCacheDoc {
  _id: string;
  accountId: string;
  tool: string;
  /** The image in the blob store's render area (lib/blob-store.ts `area`). */
  blobKey: string;
  bytes: number;
  /** Digest of the image (base64url), the ETag's value. */
  digest: string;
  mimeType: string;
  /** The rest of the tool's output (all but the image field), for a POST's answer. */
  meta: Record<string, unknown>;
  /** Credits the render was charged: what each hit saves. */
  cost: number;
  createdAt: Date;
  /** createdAt + the longest age any request may accept (30 days): swept after. */
  expiresAt: Date;
}

/** A day of one account's render cache hits (`<accountId>:<yyyy-mm-dd>`). */
export interface RenderCacheDayDoc {
  _id: string;
  accountId: string;
  day: string;
  hits: number;
  creditsSaved: number;
}

/** A credit pack the operator sells (`credit_packs`, id chosen by the operator). */
export interface CreditPackDoc {
  _id: string;
  name: string;
  credits: number;
  /** In minor units, `currency` lowercase ISO 4217. */
  price: { amount: number; currency: string };
  /** Days a purchase's credits last from its payment; null: they never lapse. */
  expiresInDays: number | null;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type PurchaseStatus = 'pending' | 'paid' | 'failed' | 'refunded' | 'partially_refunded' | 'disputed';

/**
 * A purchase of a pack through Stripe Checkout (`purchases`, `pur_...`): what was promised when
 * the session was made, so a pack changed later cannot change it, and what Stripe's events made
 * of it. The money itself moves only in the ledger (the grant `checkout:<sessionId>`, its voids).
 */
export interface PurchaseDoc {
  _id: string;
  accountId: string;
  packId: string;
  packName: string;
  credits: number;
  amount: number;
  currency: string;
  expiresInDays: number | null;
  /** The Checkout Session (unique): how its events find the purchase. */
  sessionId: string;
  /** The account's Stripe customer the session was made for. */
  customerId: string;
  /** The customer asked to keep the card for auto-recharge. */
  saveCard: boolean;
  /** Learnt from the session's events: how charge and dispute events find the purchase. */
  paymentIntentId: string | null;
  status: PurchaseStatus;
  /** The grant its credits went in, once paid. */
  grantId: string | null;
  /** Credits taken back by refunds and disputes (now: a dispute won gives its part back). */
  creditsVoided: number;
  /** Minor units refunded so far (Stripe's charge.amount_refunded). */
  amountRefunded: number;
  createdAt: Date;
  paidAt: Date | null;
  receiptUrl: string | null;
  auditDrafts?: AuditDraft[];
}

/** What an account is to Stripe (`billing_accounts`, `_id` the account id): its customer, saved card and auto-recharge. */
export interface BillingAccountDoc {
  _id: string;
  /** Made once per account (domain/billing/customers.ts) and reused. */
  stripeCustomerId?: string;
  /** The card saved at a checkout with saveCard: its id and what the owner is shown of it. */
  paymentMethod?: { id: string; brand: string; last4: string } | null;
  autoRecharge?: AutoRechargeState;
  auditDrafts?: AuditDraft[];
}

/** Auto-recharge's settings and state; written field by field, so any of the state may be absent (read as 0 or null). */
export interface AutoRechargeState {
  enabled: boolean;
  packId: string;
  threshold: number;
  /** Recharges a calendar month (UTC) may start, failed ones included. */
  monthlyLimit: number;
  /** `YYYY-MM` that `count` counts in. */
  month: string;
  count: number;
  consecutiveFailures: number;
  /** The recharge running now (at most one), or null. */
  inFlight: string | null;
  lastRechargeId: string | null;
  /** The last recharge whose failure was counted in `consecutiveFailures` (so a retried step counts it once). */
  lastFailedRechargeId: string | null;
  /** Why it was turned off by the service (three failures in a row), until the owner turns it on again. */
  disabledReason: string | null;
}

/** One automatic recharge (`recharges`, `rch_...`): the pack's promise at its start and its payment intent. */
export interface RechargeDoc {
  _id: string;
  accountId: string;
  packId: string;
  credits: number;
  amount: number;
  currency: string;
  expiresInDays: number | null;
  paymentIntentId: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  /** Why it failed: Stripe's error code (`card_declined`, `authentication_required` ...). */
  failureReason: string | null;
  grantId: string | null;
  createdAt: Date;
  settledAt: Date | null;
}

/**
 * What Stripe's charge and dispute events said of one payment intent (`stripe_payments`, `_id` the
 * intent's id), kept even before the purchase is known: a refund that arrives before its
 * completion is applied once the completion links the two (domain/billing/fulfilment.ts).
 */
export interface StripePaymentDoc {
  _id: string;
  purchaseId?: string;
  /** The charge's amount and the most it was seen refunded (refund events carry the running total). */
  amount?: number;
  amountRefunded?: number;
  receiptUrl?: string;
  /** Dispute id -> its status; a closed status (`won`, `lost`) is never replaced by an open one. */
  disputes?: Record<string, string>;
  updatedAt: Date;
}

/** A `Stripe-Signature` seen (its digest), kept for the signature's tolerance so a replay of it is refused. */
export interface StripeSignatureDoc {
  _id: string;
  at: Date;
}
