//! The chaos suite's verdict: after every workflow of the account has ended, each call is
//! charged if and only if it answered 200, no hold is left, and the balance is the grants minus
//! the charged costs minus what lapsed (expired grants). Reads the usage ledger and the account through the API, the holds from
//! the database (they are not part of the API) and running workflows from Temporal.
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import type { CallRecord } from './tool-client.js';
import { temporalConnectOptions, type TemporalSettings } from '../../../lib/config-temporal.js';

export interface AuditOptions {
  apiUrl: string;
  ownerToken: string;
  accountId: string;
  /** Every credit ever granted to the account (its opening credits included): the grants the API lists must add up to it. */
  grants: number;
  mongodbUrl: string;
  temporal: TemporalSettings;
  calls: readonly CallRecord[];
  /** How long in-flight workflows may take to end. Default 3 min. */
  settleTimeoutMs?: number;
  /** Batches the account ran beside its calls: each item must be charged if and only if it succeeded. */
  batches?: readonly AuditedBatch[];
}

/** A batch to audit: read through the API with the account's key, its items from the database. */
export interface AuditedBatch {
  id: string;
  apiKey: string;
  /** The tool's cost: what each succeeded item is charged. */
  cost: number;
}

/** What the audit found of a batch. */
export interface BatchAudit {
  id: string;
  status: string;
  total: number;
  counts: Record<string, number>;
  charged: number;
}

export interface UsageItem {
  requestId: string;
  tool: string | null;
  credits: number;
  outcome: 'charged' | 'refunded' | 'expired';
  /** Set on the calls of a batch's items. */
  batchId?: string;
}

export interface AuditReport {
  calls: number;
  /** Answers by status (and code): `200`, `504 tool_timeout` ... ; `no answer` for failed connections. */
  answers: Record<string, number>;
  /** The same by the phase (fault) during which each call was sent, in phase order. */
  answersByPhase: Record<string, Record<string, number>>;
  /** Every call that did not answer 200, by phase: tool, answer and the problem's detail, counted. */
  failuresByPhase: Record<string, Record<string, number>>;
  /** Answers learnt by re-asking with the same Idempotency-Key after the connection failed. */
  reasked: number;
  /** Usage entries: calls charged, calls refunded (each workflow once, replays share it). */
  charged: number;
  refunded: number;
  chargedCredits: number;
  /** Credits that lapsed with expired grants (usage entries `expired`). */
  expiredCredits: number;
  balance: number;
  expectedBalance: number;
  holdsLeft: number;
  batches: BatchAudit[];
  mismatches: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function getJson<T>(url: string, token: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every item of an account list the API pages with `nextCursor` (`path` as under /api/v1/account). */
async function readAll<T>(apiUrl: string, ownerToken: string, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: T[]; nextCursor: string | null } = await getJson(
      `${apiUrl}/api/v1/account/${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ownerToken,
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** Waits until no workflow of the account runs and no hold is left (or the time is up). */
async function settle(options: AuditOptions, holds: () => Promise<number>): Promise<void> {
  const connection = await Connection.connect(temporalConnectOptions(options.temporal));
  const client = new Client({ connection, namespace: options.temporal.namespace });
  const deadline = Date.now() + (options.settleTimeoutMs ?? 180_000);
  try {
    for (;;) {
      let running = 0;
      for await (const _ of client.workflow.list({ query: `AccountId="${options.accountId}" AND ExecutionStatus="Running"` })) running++;
      if (running === 0 && (await holds()) === 0) return;
      if (Date.now() > deadline) return; // the audit reports what is left
      await sleep(1_000);
    }
  } finally {
    await connection.close();
  }
}

export async function auditCalls(options: AuditOptions): Promise<AuditReport> {
  const mongo = await MongoClient.connect(options.mongodbUrl, { serverSelectionTimeoutMS: 30_000 });
  try {
    const accounts = mongo
      .db()
      .collection<{ _id: string; balance: number; chargedBalance: number; holds?: Record<string, unknown> }>('accounts');
    const account = async () => (await accounts.findOne({ _id: options.accountId }))!;
    await settle(options, async () => Object.keys((await account()).holds ?? {}).length);

    const usage = new Map((await readAll<UsageItem>(options.apiUrl, options.ownerToken, 'usage')).map((u) => [u.requestId, u]));
    const doc = await account();
    const mismatches: string[] = [];
    const answers: Record<string, number> = {};
    const answersByPhase: Record<string, Record<string, number>> = {};
    const failuresByPhase: Record<string, Record<string, number>> = {};
    const answered200 = new Set<string>();

    for (const call of options.calls) {
      const label = call.status === undefined ? 'no answer' : call.status === 200 ? '200' : `${call.status} ${call.code ?? ''}`.trim();
      answers[label] = (answers[label] ?? 0) + 1;
      const phase = (answersByPhase[call.phase ?? 'none'] ??= {});
      phase[label] = (phase[label] ?? 0) + 1;
      if (call.status !== 200) {
        // A repeat answers what its first sending got: say so when that was under another fault.
        const repeat =
          call.firstSentDuring && call.firstSentDuring !== call.phase
            ? ` (a repeat of a call first sent during ${call.firstSentDuring})`
            : '';
        const failure = `${call.tool} ${label}: ${call.detail ?? call.failure ?? ''}`.trim() + repeat;
        const failures = (failuresByPhase[call.phase ?? 'none'] ??= {});
        failures[failure] = (failures[failure] ?? 0) + 1;
      }
      const what = `call ${call.index} (${call.tool}${call.idempotencyKey ? ', idempotent' : ''}, ${call.phase ?? ''})`;
      const entry = call.requestId ? usage.get(call.requestId) : undefined;
      if (call.status === 200) {
        if (call.brokenBody) mismatches.push(`${what} answered 200 with a body that is not a JSON object (${call.requestId})`);
        if (!call.requestId) mismatches.push(`${what} answered 200 without a request id`);
        else answered200.add(call.requestId);
        if (entry?.outcome !== 'charged')
          mismatches.push(`${what} answered 200 but is ${entry ? entry.outcome : 'not in the usage ledger'} (${call.requestId})`);
        else if (entry.credits !== call.cost) mismatches.push(`${what} answered 200 but was charged ${entry.credits}, not ${call.cost}`);
      } else if (call.status !== undefined && entry?.outcome === 'charged') {
        mismatches.push(`${what} answered ${label} but was charged (${call.requestId})`);
      }
    }
    // A charge nobody saw a 200 for: a call whose answer was lost, or one answered with an error.
    for (const u of usage.values()) {
      if (u.outcome === 'charged' && !u.batchId && !answered200.has(u.requestId)) {
        const known = options.calls.some((c) => c.requestId === u.requestId);
        if (!known) mismatches.push(`${u.requestId} (${u.tool}) was charged but no call answered 200 for it`);
      }
    }

    const batches: BatchAudit[] = [];
    for (const batch of options.batches ?? [])
      batches.push(await auditBatch(options.apiUrl, mongo, batch, [...usage.values()], mismatches));

    const charged = [...usage.values()].filter((u) => u.outcome === 'charged');
    const chargedCredits = charged.reduce((sum, u) => sum + u.credits, 0);
    const expiredCredits = [...usage.values()].filter((u) => u.outcome === 'expired').reduce((sum, u) => sum + u.credits, 0);
    const expectedBalance = options.grants - chargedCredits - expiredCredits;
    const listed = await readAll<{ amount: number; remaining: number; expired: number }>(options.apiUrl, options.ownerToken, 'grants');
    const listedTotal = listed.reduce((sum, g) => sum + g.amount, 0);
    if (listedTotal !== options.grants) mismatches.push(`the grants listed add up to ${listedTotal}, expected ${options.grants}`);
    const listedExpired = listed.reduce((sum, g) => sum + g.expired, 0);
    if (listedExpired !== expiredCredits)
      mismatches.push(`the grants listed say ${listedExpired} credits lapsed, the usage ${expiredCredits}`);
    const listedLeft = listed.reduce((sum, g) => sum + g.remaining, 0);
    if (listedLeft !== doc.balance) mismatches.push(`what is left of the grants (${listedLeft}) is not the balance (${doc.balance})`);
    const holdsLeft = Object.keys(doc.holds ?? {}).length;
    if (holdsLeft) mismatches.push(`${holdsLeft} hold(s) left behind: ${Object.keys(doc.holds!).join(', ')}`);
    if (doc.balance !== expectedBalance)
      mismatches.push(`available balance ${doc.balance}, expected grants - charged - expired = ${expectedBalance}`);
    if (doc.chargedBalance !== expectedBalance) mismatches.push(`charged balance ${doc.chargedBalance}, expected ${expectedBalance}`);
    const apiBalance = (await getJson<{ balance: number }>(`${options.apiUrl}/api/v1/account`, options.ownerToken)).balance;
    if (apiBalance !== expectedBalance) mismatches.push(`GET /api/v1/account says ${apiBalance}, expected ${expectedBalance}`);

    return {
      calls: options.calls.length,
      answers,
      answersByPhase,
      failuresByPhase,
      reasked: options.calls.filter((c) => c.reasked).length,
      charged: charged.length,
      refunded: [...usage.values()].filter((u) => u.outcome === 'refunded').length,
      chargedCredits,
      expiredCredits,
      balance: doc.balance,
      expectedBalance,
      holdsLeft,
      batches,
      mismatches,
    };
  } finally {
    await mongo.close();
  }
}

const ITEM_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped'];

/**
 * A batch's verdict: it ended; each item ended; an item is charged (its cost, once) if and only if
 * it succeeded, and no other call of the batch is; the counts and the charge the API answers are
 * those of its items.
 */
async function auditBatch(
  apiUrl: string,
  mongo: MongoClient,
  batch: AuditedBatch,
  usage: readonly UsageItem[],
  mismatches: string[],
): Promise<BatchAudit> {
  const view = await getJson<{
    status: string;
    total: number;
    counts: Record<string, number>;
    charged: number;
    completedAt: string | null;
  }>(`${apiUrl}/api/v1/batches/${batch.id}`, batch.apiKey);
  const what = `batch ${batch.id}`;
  if (!view.completedAt) mismatches.push(`${what} has not ended: ${view.status} ${JSON.stringify(view.counts)}`);
  const items = await mongo
    .db()
    .collection<{ index: number; status: string; requestId?: string | null; charged?: number }>('batch_items')
    .find({ batchId: batch.id })
    .toArray();
  if (items.length !== view.total) mismatches.push(`${what} has ${items.length} items, its total says ${view.total}`);
  const counts: Record<string, number> = Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0]));
  for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
  if (ITEM_STATUSES.some((s) => counts[s] !== view.counts[s]))
    mismatches.push(`${what} counts ${JSON.stringify(view.counts)}, its items ${JSON.stringify(counts)}`);
  const charges = new Map(usage.filter((u) => u.batchId === batch.id && u.outcome === 'charged').map((u) => [u.requestId, u]));
  for (const item of items) {
    const charge = item.requestId ? charges.get(item.requestId) : undefined;
    if (item.status === 'succeeded') {
      if (!charge) mismatches.push(`${what} item ${item.index} succeeded but is not charged (${item.requestId})`);
      else if (charge.credits !== batch.cost)
        mismatches.push(`${what} item ${item.index} was charged ${charge.credits}, not ${batch.cost}`);
      if (item.charged !== batch.cost) mismatches.push(`${what} item ${item.index} says it was charged ${item.charged}, not ${batch.cost}`);
    } else if (charge) {
      mismatches.push(`${what} item ${item.index} is ${item.status} but was charged (${item.requestId})`);
    }
    if (item.requestId) charges.delete(item.requestId);
  }
  for (const u of charges.values()) mismatches.push(`${what}: ${u.requestId} was charged but is no item's outcome`);
  if (view.charged !== counts.succeeded! * batch.cost)
    mismatches.push(`${what} says ${view.charged} charged, its succeeded items cost ${counts.succeeded! * batch.cost}`);
  return { id: batch.id, status: view.status, total: view.total, counts: view.counts, charged: view.charged };
}

/** The report as the lines `npm run chaos` prints. */
export function formatAudit(report: AuditReport): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
  return [
    `calls ${report.calls}; answers: ${list(report.answers)}; re-asked after a lost connection: ${report.reasked}`,
    ...Object.entries(report.answersByPhase).flatMap(([phase, counts]) => [
      `  during ${phase}: ${list(counts)}`,
      ...Object.entries(report.failuresByPhase[phase] ?? {}).map(([failure, n]) => `    ${n} x ${failure}`),
    ]),
    `usage ledger: charged ${report.charged} (${report.chargedCredits} credits), refunded ${report.refunded}, expired ${report.expiredCredits} credits`,
    ...report.batches.map((b) => `batch ${b.id}: ${b.status}, ${b.total} items: ${list(b.counts)}; charged ${b.charged}`),
    `balance ${report.balance} (expected ${report.expectedBalance}), holds left ${report.holdsLeft}`,
    `mismatches: ${report.mismatches.length}${report.mismatches.map((m) => `\n  - ${m}`).join('')}`,
  ].join('\n');
}
