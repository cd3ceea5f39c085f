//! The MongoDB connection, the collections the service uses and their indexes.
//! Everything here must also work on wire-compatible engines: single-document atomic updates
//! and unique indexes only (no transactions, no TTL indexes, no change streams).
import {
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type UpdateFilter,
  type WithId,
} from 'mongodb';
import { untilDeadline } from './until-deadline.js';

/**
 * The service's collections, each typed by its document. The types live beside the domain that
 * owns them (`domain/account-documents.ts`, `domain/identity/documents.ts`, ...), and each of those
 * files adds its collections here (`declare module`), so lib imports no domain. `collections()`
 * below names each one and says how its writes are made safe.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, not `{}`, so the domains' `declare module` blocks can add to it.
export interface Collections {}

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
    destinations: db.collection('destinations'),
    auditLog: db.collection('audit_log', JOURNALED),
    linkSecrets: db.collection('link_secrets'),
    renderCache: db.collection('render_cache'),
    renderCacheDays: db.collection('render_cache_days'),
    // A batch's counts and its items' outcomes say what was charged: journaled like the ledger.
    batches: db.collection('batches', JOURNALED),
    batchItems: db.collection('batch_items', JOURNALED),
    // Billing (domain/billing/): what was bought and paid for, and what Stripe said of it, is money.
    creditPacks: db.collection('credit_packs', JOURNALED),
    purchases: db.collection('purchases', JOURNALED),
    billingAccounts: db.collection('billing_accounts', JOURNALED),
    recharges: db.collection('recharges', JOURNALED),
    stripePayments: db.collection('stripe_payments', JOURNALED),
    stripeSignatures: db.collection('stripe_signatures'),
    // People (domain/identity/): a sign-out, a lockout or a used token lost in a crash would come back.
    users: db.collection('users', JOURNALED),
    memberships: db.collection('memberships', JOURNALED),
    sessions: db.collection('sessions', JOURNALED),
    authTokens: db.collection('auth_tokens', JOURNALED),
    signinThrottle: db.collection('signin_throttle', JOURNALED),
    // Request rates (domain/rate-buckets.ts): one write per request, not journaled; a bucket lost
    // in a crash only starts full again.
    rateBuckets: db.collection('rate_buckets'),
    welcomeMailboxes: db.collection('welcome_mailboxes', JOURNALED),
    passkeys: db.collection('passkeys', JOURNALED),
    webauthnChallenges: db.collection('webauthn_challenges'),
    oidcStates: db.collection('oidc_states'),
    // The authorization server (domain/oauth/): a revoked grant or a used code lost in a crash would come back.
    oauthStore: db.collection('oauth_store', JOURNALED),
    oauthConnections: db.collection('oauth_connections', JOURNALED),
    // MCP sessions and their running calls (domain/mcp-sessions.ts): one lost in a crash only ends
    // its session (the client opens another) or lets a cancellation go unheard.
    mcpSessions: db.collection('mcp_sessions'),
    mcpCalls: db.collection('mcp_calls'),
    // Calls their clients cancelled (domain/calls/cancellations.ts): one lost in a crash leaves the
    // call to hear of it at its workflow's next task instead.
    callCancellations: db.collection('call_cancellations'),
    // Monitors (domain/monitors/): a monitor's state says what was notified; its runs say what was charged.
    monitors: db.collection('monitors', JOURNALED),
    monitorRuns: db.collection('monitor_runs', JOURNALED),
    monitorImages: db.collection('monitor_images'),
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
    c.mcpSessions.createIndex({ expiresAt: 1 }),
    c.mcpCalls.createIndex({ expiresAt: 1 }),
    c.mcpCalls.createIndex({ sessionId: 1 }),
    c.callCancellations.createIndex({ expiresAt: 1 }),
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
    c.destinations.createIndex({ accountId: 1, createdAt: 1 }),
    c.auditLog.createIndex({ accountId: 1, seq: -1 }, { unique: true }),
    c.auditLog.createIndex({ at: -1, _id: -1 }),
    c.linkSecrets.createIndex({ accountId: 1, createdAt: -1 }),
    // The render cache: an account's purge, the sweep, and the owner's days.
    c.renderCache.createIndex({ accountId: 1 }),
    c.renderCache.createIndex({ expiresAt: 1 }),
    c.renderCacheDays.createIndex({ accountId: 1, day: -1 }),
    // Batches: the account's list, its runner's search for what to run; the items of a batch in
    // index order (the items route's pages), by status in index order (the same filtered by status,
    // pending ones to skip, running ones to count) and in the order they ended (results).
    c.batches.createIndex({ accountId: 1, createdAt: -1 }),
    c.batches.createIndex({ accountId: 1, status: 1, createdAt: 1 }),
    c.batchItems.createIndex({ batchId: 1, index: 1 }),
    c.batchItems.createIndex({ batchId: 1, status: 1, index: 1 }),
    c.batchItems.createIndex({ batchId: 1, endedAt: 1 }),
    // Every write of an item paid for an index of the account's running items, read only by the
    // runner's fill, which now counts them per batch.
    dropIndexIfPresent(c.batchItems, 'accountId_1_status_1'),
    // Billing: a session's events find their purchase, charge and dispute events by payment intent,
    // as a payment intent's events find their recharge; the owner's list; recharges whose hand-off
    // was cut short (the billing upkeep); old signatures.
    c.purchases.createIndex({ sessionId: 1 }, { unique: true }),
    c.purchases.createIndex({ paymentIntentId: 1 }),
    c.purchases.createIndex({ accountId: 1, createdAt: -1 }),
    c.recharges.createIndex({ accountId: 1, createdAt: -1 }),
    c.recharges.createIndex({ paymentIntentId: 1 }),
    c.accounts.createIndex({ rechargeDueAt: 1 }),
    c.stripeSignatures.createIndex({ at: 1 }),
    // People: one user per address; an account's members and a user's accounts; a session by its
    // cookie's digest, a user's sessions; tokens by address (the mail limit); a user's passkeys.
    c.users.createIndex({ email: 1 }, { unique: true }),
    c.memberships.createIndex({ accountId: 1, joinedAt: 1 }),
    c.memberships.createIndex({ userId: 1 }),
    c.sessions.createIndex({ digest: 1 }, { unique: true }),
    c.sessions.createIndex({ userId: 1, createdAt: -1 }),
    c.sessions.createIndex({ expiresAt: 1 }),
    c.authTokens.createIndex({ email: 1, purpose: 1, createdAt: -1 }),
    c.authTokens.createIndex({ expiresAt: 1 }),
    // An account's pending invitations (listed, revoked by their public id).
    c.authTokens.createIndex({ accountId: 1, purpose: 1, createdAt: -1 }),
    c.passkeys.createIndex({ userId: 1, createdAt: 1 }),
    c.webauthnChallenges.createIndex({ expiresAt: 1 }),
    c.oidcStates.createIndex({ expiresAt: 1 }),
    // A grant's codes and tokens (its revocation), a session by its uid, the sweep; an account's connected apps.
    c.oauthStore.createIndex({ grantId: 1 }),
    c.oauthStore.createIndex({ uidDigest: 1 }),
    c.oauthStore.createIndex({ expiresAt: 1 }),
    c.oauthConnections.createIndex({ accountId: 1, createdAt: -1 }),
    // Monitors: an account's list (and its count); a monitor's runs newest first; the runs' retention.
    c.monitors.createIndex({ accountId: 1, createdAt: -1 }),
    c.monitorRuns.createIndex({ monitorId: 1, at: -1 }),
    c.monitorRuns.createIndex({ at: 1 }),
  ]);
}

/** MongoDB's codes for a drop of what is not there: the collection (NamespaceNotFound) or the index (IndexNotFound). */
const NOT_THERE = new Set([26, 27]);

async function dropIndexIfPresent<T extends Document>(collection: Collection<T>, name: string): Promise<void> {
  try {
    await collection.dropIndex(name);
  } catch (err) {
    if (!(err instanceof MongoServerError && NOT_THERE.has(err.code as number))) throw err;
  }
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/** Connects and selects the database named in the URL (default `utility_tools`). */
/** @param options.traced the process traces (lib/tracing.ts): its commands become spans (lib/mongo-tracing.ts). */
export async function connectMongo(
  url: string,
  options: { appName?: string; maxPoolSize?: number; traced?: boolean } = {},
): Promise<Mongo> {
  const client = new MongoClient(url, {
    appName: options.appName ?? 'utility-tools',
    maxPoolSize: options.maxPoolSize ?? 50,
    serverSelectionTimeoutMS: 5_000,
    // Command events only when traced: untraced, the driver makes none.
    monitorCommands: Boolean(options.traced),
  });
  if (options.traced) (await import('./mongo-tracing.js')).traceCommands(client);
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

/**
 * `findOneAndUpdate` with `upsert`, answering the document as it is after. SecantusDB applies every
 * one of several upserts of one new `_id` racing each other, but answers some of the losers with no
 * document (eight racing `$inc` upserts end at 8, a fifth of them answered null): such an answer is
 * the document read again by its `_id`. The filter must name the `_id`, as the only field that
 * makes an upsert race resolve to one document.
 */
export async function upsertReturningAfter<T extends { _id: string }>(
  collection: Collection<T>,
  filter: Filter<T> & { _id: string },
  update: UpdateFilter<T>,
  options: { projection?: Document } = {},
): Promise<WithId<T>> {
  const after = await collection.findOneAndUpdate(filter, update, { ...options, upsert: true, returnDocument: 'after' });
  if (after) return after;
  const read = await collection.findOne({ _id: filter._id } as Filter<T>, options);
  if (!read) throw new Error(`upsert of ${filter._id}: answered with no document, and none is there`);
  return read;
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

/** Where a page of newest-first rows goes on from: the last row of the page before (its time, then its id). */
export interface PageAfter {
  at: Date;
  id: string;
}

/** The condition for the rows after `after` in newest-first order by `field`, then `_id` (none without it). */
export function olderThan(after: PageAfter | undefined, field = 'createdAt'): Document {
  return after ? { $or: [{ [field]: { $lt: after.at } }, { [field]: after.at, _id: { $lt: after.id } }] } : {};
}

/**
 * A page by keyset, newest first: up to `limit` documents of `filter` (which must not have an `$or`
 * of its own) after `after` by `field` (`createdAt` unless said), then `_id`, and whether more follow.
 */
export async function newestFirst<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  page: { limit: number; after?: PageAfter },
  options: { field?: string; projection?: Document } = {},
): Promise<{ rows: WithId<T>[]; more: boolean }> {
  const field = options.field ?? 'createdAt';
  const rows = await collection
    .find({ ...filter, ...olderThan(page.after, field) } as Filter<T>, options.projection ? { projection: options.projection } : {})
    .sort({ [field]: -1, _id: -1 })
    .limit(page.limit + 1)
    .toArray();
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

/**
 * A document as an answer shows it: its `_id` as `id`, then `fields` in that order, a field the
 * document does not have left out (as JSON leaves out an undefined one).
 */
export function viewOf<T extends { _id: string }, K extends keyof T>(doc: T, fields: readonly K[]): { id: string } & Pick<T, K> {
  const view: Record<string, unknown> = { id: doc._id };
  for (const field of fields) if (doc[field] !== undefined) view[field as string] = doc[field];
  return view as { id: string } & Pick<T, K>;
}
