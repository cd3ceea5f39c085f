//! The MongoDB connection, the collections the service uses and their indexes.
//! Everything here must also work on wire-compatible engines: single-document atomic updates
//! and unique indexes only (no transactions, no TTL indexes, no change streams).
import { MongoClient, MongoError, MongoNetworkError, MongoServerError, MongoServerSelectionError, type Collection, type Db, type ObjectId } from 'mongodb';
import { untilDeadline } from './until-deadline.js';

export interface Hold {
  cost: number;
  tool: string;
  at: Date;
  /** The grants the cost was taken from (grant id -> credits); absent on holds older than grants. */
  from?: Record<string, number>;
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
  /** Usage-ledger entries decided by an update of this document, copied to `ledger` after it (like `outbox`). */
  entries?: LedgerEntry[];
  /** The account's plan and where its monthly allowance stands (domain/allowances.ts). */
  plan?: AccountPlan;
  /** Armed while `credits.low` may fire: set by a grant that lifts the charged balance to the threshold or more. */
  lowArmed: boolean;
  /** Armed while `credits.exhausted` may fire: set by a grant that lifts the charged balance above zero. */
  exhaustedArmed: boolean;
  outbox: OutboxEvent[];
  createdAt: Date;
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
  revokedAt: Date | null;
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
  at: Date;
}

export type GrantKind = 'welcome' | 'purchase' | 'monthly_allowance' | 'manual_adjustment';

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
  /** Set once the event was handed to every webhook endpoint it goes to (lib/webhook-fanout.ts). */
  fannedOutAt?: Date;
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

// --- Webhooks (issue 5: lib/webhook-endpoints.ts, activities/core/webhooks.ts) ---

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

/** gold-price's last good feed answer per source (`metal:gold`, `metal:silver`, `fx`), served when the feed is down. */
export interface MarketQuoteDoc {
  _id: string;
  value: Record<string, unknown>;
  savedAt: Date;
}

export interface Collections {
  accounts: Collection<AccountDoc>;
  credentials: Collection<CredentialDoc>;
  ledger: Collection<LedgerEntry>;
  events: Collection<EventDoc>;
  idempotency: Collection<IdempotencyDoc>;
  callKeys: Collection<CallKeyDoc>;
  webhookEndpoints: Collection<WebhookEndpointDoc>;
  webhookAttempts: Collection<WebhookAttemptDoc>;
  webhookUndelivered: Collection<WebhookUndeliveredDoc>;
  marketQuotes: Collection<MarketQuoteDoc>;
  calls: Collection<CallDoc>;
  grants: Collection<GrantDoc>;
  plans: Collection<PlanDoc>;
}

/**
 * Credits are money: their writes wait for the journal. With the default (w:1, no journal) a
 * database crash loses the last writes it acknowledged; the chaos suite measured it (SecantusDB
 * SIGKILLed under inserts lost ~50 acknowledged of ~7,700, and a charged call left no trace in
 * the balance or the ledger). Journaled: none lost, at about half the insert rate.
 */
const JOURNALED = { writeConcern: { w: 1, journal: true } } as const;
// Journaled too, as a call depends on them once it started: an idempotency record lost in a
// crash would let a retry with the same key run (and charge) the call again, and a lost call key
// failed its call (chaos: bcrypt-hash answered 500 "call key expired" after a database kill).

export function collections(db: Db): Collections {
  return {
    accounts: db.collection('accounts', JOURNALED),
    credentials: db.collection('credentials'),
    ledger: db.collection('ledger', JOURNALED),
    events: db.collection('events'),
    idempotency: db.collection('idempotency', JOURNALED),
    callKeys: db.collection('call_keys', JOURNALED),
    webhookEndpoints: db.collection('webhook_endpoints'),
    webhookAttempts: db.collection('webhook_attempts'),
    webhookUndelivered: db.collection('webhook_undelivered'),
    marketQuotes: db.collection('market_quotes'),
    calls: db.collection('calls', JOURNALED), // an asynchronous call's answer, once charged
    grants: db.collection('grants', JOURNALED),
    plans: db.collection('plans', JOURNALED),
  };
}

export async function ensureIndexes(db: Db): Promise<void> {
  const c = collections(db);
  await Promise.all([
    c.credentials.createIndex({ digest: 1 }, { unique: true }),
    c.credentials.createIndex({ accountId: 1, createdAt: -1 }),
    c.ledger.createIndex({ accountId: 1, at: -1 }),
    c.events.createIndex({ accountId: 1, createdAt: -1 }),
    c.idempotency.createIndex({ expiresAt: 1 }),
    c.callKeys.createIndex({ expiresAt: 1 }),
    c.events.createIndex({ fannedOutAt: 1, createdAt: 1 }),
    c.webhookEndpoints.createIndex({ accountId: 1, createdAt: 1 }),
    c.webhookAttempts.createIndex({ endpointId: 1, attemptedAt: -1 }),
    c.webhookUndelivered.createIndex({ endpointId: 1, endedAt: -1 }),
    // The event log (its deliveries per event) and recovery (what an endpoint never got).
    c.webhookAttempts.createIndex({ eventId: 1 }),
    c.webhookUndelivered.createIndex({ eventId: 1 }),
    c.events.createIndex({ createdAt: 1 }),
    c.calls.createIndex({ accountId: 1, createdAt: -1 }),
    c.calls.createIndex({ expiresAt: 1 }),
    // Grants: the owner's list, and the allowance run's search for what is due to lapse.
    c.grants.createIndex({ accountId: 1, createdAt: -1 }),
    c.grants.createIndex({ expiredAt: 1, expiresAt: 1 }),
    c.accounts.createIndex({ 'plan.nextAllowanceAt': 1 }),
  ]);
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/** Connects and selects the database named in the URL (default `utility_tools`). */
export async function connectMongo(url: string, options: { appName?: string; maxPoolSize?: number } = {}): Promise<Mongo> {
  const client = new MongoClient(url, {
    appName: options.appName ?? 'utility-tools',
    maxPoolSize: options.maxPoolSize ?? 50,
    serverSelectionTimeoutMS: 5_000,
  });
  await client.connect();
  const db = client.db(new URL(url).pathname.replace(/^\//, '') || 'utility_tools');
  return { client, db, close: () => client.close() };
}

/** Socket errors of a connection the other end closed, as Node raises them. */
const CONNECTION_LOST = new Set(['EPIPE', 'ECONNRESET']);
const IN_THE_DRIVER = /[\\/]node_modules[\\/]mongodb[\\/]/;

/**
 * The driver found no server (down, restarting), lost its connection mid-request, or the server
 * said the operation may be retried (shutting down, stepping down): a moment's outage, not a bug.
 * The driver (7.x) lets one loss through unwrapped: writing a command to a socket the server has
 * just closed throws Node's own EPIPE from inside the driver (seen in chaos, `kill/database`).
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (err instanceof MongoServerSelectionError || err instanceof MongoNetworkError) return true;
  if (err instanceof MongoError) return err.hasErrorLabel('RetryableWriteError');
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err instanceof Error && code !== undefined && CONNECTION_LOST.has(code) && IN_THE_DRIVER.test(err.stack ?? '');
}

/**
 * Runs a database step, repeating it while the database is unreachable and `deadline` (epoch ms)
 * allows; past it the outage is thrown (503). Only for steps that are safe to repeat: a write
 * whose acknowledgement was lost may have been applied.
 */
export function untilReachable<T>(deadline: number, step: () => Promise<T>): Promise<T> {
  return untilDeadline(deadline, step, (err) => {
    if (isDatabaseUnreachable(err)) return undefined;
    throw err;
  });
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

/** Inserts a document unless one with its `_id` exists; true when this call inserted it. */
export async function insertIfAbsent<T extends { _id: string }>(collection: Collection<T>, doc: T): Promise<boolean> {
  try {
    await collection.insertOne(doc as never);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
