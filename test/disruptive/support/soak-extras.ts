//! The soak's traffic beyond synchronous calls, each with its check at the end: asynchronous
//! calls, read until they end, whose `call.completed` events must all reach a webhook endpoint in
//! the soak process; and render links asked for again and again on an account of their own, so
//! most are cache hits, which must be free while every miss is charged like a call.
import { renderLink } from '../../../client/render-link.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { auditCalls, type AuditOptions, type AuditReport } from './ledger-audit.js';
import { failureOf, isJsonObject, openAccount, readProblem, type CallRecord, type TestAccount } from './tool-client.js';
import type { UncheckedJson } from '../../helpers/api.js';

/** How long an asynchronous call may take to end, faults included, before the soak gives up on it. */
const ASYNC_END_MS = 10 * 60_000;
const ASYNC_POLL_MS = 250;
/** How long the `call.completed` deliveries may trail the last call's end (retries after a fault). */
const DELIVERY_GRACE_MS = 3 * 60_000;
/** The render links' inputs: few, so most asks are hits; a maxAge that makes each miss again now and then. */
const LINK_INPUTS = 20;
const LINK_MAX_AGE_S = 600;
const LINK_COST = 1;
const CLIENT_TIMEOUT_MS = 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function postJson(url: string, token: string, body: unknown): Promise<{ status: number; body: UncheckedJson }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/**
 * Sends the call with `Prefer: respond-async` and reads `/calls/{id}` until it ends: the record
 * then holds the status a synchronous call would have answered (200, or the problem's status),
 * so the ledger audit judges it like any call.
 */
export async function sendAsyncCall(apiUrl: string, apiKey: string, record: CallRecord): Promise<CallRecord> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', prefer: 'respond-async' };
  const started = performance.now();
  try {
    const res = await fetch(`${apiUrl}/api/v1/tools/${record.tool}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(record.body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    record.requestId = res.headers.get('x-request-id') ?? undefined;
    if (res.status !== 202) {
      record.status = res.status;
      if (res.status === 200 && !isJsonObject(text)) record.brokenBody = true;
      if (res.status !== 200) readProblem(record, text, res.headers.get('content-type'));
    } else {
      await readUntilEnded(apiUrl, apiKey, record);
    }
  } catch (err) {
    record.failure = failureOf(err);
  }
  record.latencyMs = performance.now() - started;
  return record;
}

async function readUntilEnded(apiUrl: string, apiKey: string, record: CallRecord): Promise<void> {
  const deadline = Date.now() + ASYNC_END_MS;
  while (Date.now() < deadline) {
    await sleep(ASYNC_POLL_MS);
    // A fault may leave the API unable to read the call for a while: ask again.
    const res = await fetch(`${apiUrl}/api/v1/calls/${encodeURIComponent(record.requestId!)}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    }).catch(() => undefined);
    if (res?.status !== 200) continue;
    const call = (await res.json()) as { status: string; problem?: { status: number; code: string; detail: string }; output?: unknown };
    if (call.status === 'running') continue;
    if (call.status === 'succeeded') {
      record.status = 200;
      if (typeof call.output !== 'object' || call.output === null) record.brokenBody = true;
    } else {
      record.status = call.problem?.status;
      record.code = call.problem?.code;
      record.detail = call.problem?.detail;
    }
    return;
  }
  record.failure = `did not end within ${ASYNC_END_MS / 60_000} minutes`;
}

/** One ask of a render link: the answer, and whether the cache served it. */
export interface LinkAsk {
  record: CallRecord;
  cache?: 'HIT' | 'MISS';
  creditsCharged?: number;
  /** The answer's type: an image for a 200. */
  contentType?: string;
}

export interface SoakExtrasReport {
  asyncCalls: number;
  /** Asynchronous calls that ended (a 202 then an outcome) and the `call.completed` events delivered for them. */
  asyncEnded: number;
  delivered: number;
  /** Deliveries beyond the first for one call (at-least-once: counted, not a fault). */
  redelivered: number;
  links: { asked: number; hits: number; misses: number; other: Record<string, number>; audit: AuditReport };
  mismatches: string[];
}

export interface SoakExtras {
  /** The async calls' account is the soak's main one: the audit of its calls covers them. */
  sendAsync(record: CallRecord): Promise<CallRecord>;
  /** Asks for one of the links: the record at once (for the run's timeline), `answered` when it is filled in. */
  askLink(index: number): { record: CallRecord; answered: Promise<void> };
  finish(audit: Pick<AuditOptions, 'mongodbUrl' | 'temporal'>): Promise<SoakExtrasReport>;
  close(): Promise<void>;
}

/**
 * Registers a `call.completed` endpoint on the main account and opens the render links' account
 * with a link secret; `finish` checks both after the run.
 */
export async function startSoakExtras(options: {
  apiUrl: string;
  adminToken: string;
  main: TestAccount;
  linkCredits: number;
}): Promise<SoakExtras> {
  const { apiUrl } = options;
  const receiver: Receiver = await startReceiver();
  const endpoint = await postJson(`${apiUrl}/api/v1/account/webhooks`, options.main.ownerToken, {
    url: receiver.url('/soak'),
    eventTypes: ['call.completed'],
  });
  if (endpoint.status !== 201)
    throw new Error(`could not register the soak's webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
  const links = await openAccount(apiUrl, options.adminToken, 'soak-links', options.linkCredits);
  const secret = await postJson(`${apiUrl}/api/v1/account/link-secrets`, links.ownerToken, {});
  if (secret.status !== 201) throw new Error(`could not create a link secret: ${secret.status} ${JSON.stringify(secret.body)}`);
  const urls = await Promise.all(
    Array.from({ length: LINK_INPUTS }, (_, k) =>
      renderLink({
        baseUrl: apiUrl,
        secretId: secret.body.id,
        secret: secret.body.secret,
        tool: 'qr-generate',
        input: { text: `soak link ${k}`, size: 128 },
        maxAge: LINK_MAX_AGE_S,
      }),
    ),
  );

  const asyncRecords: CallRecord[] = [];
  const asks: LinkAsk[] = [];

  /** Asks for a link and fills in its answer: the status, whether the cache served it and what it charged. */
  async function fetchLink(ask: LinkAsk): Promise<void> {
    const { record } = ask;
    const started = performance.now();
    try {
      const res = await fetch(urls[record.index % LINK_INPUTS]!, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      const bytes = Buffer.from(await res.arrayBuffer());
      record.status = res.status;
      record.requestId = res.headers.get('x-request-id') ?? undefined;
      ask.cache = (res.headers.get('x-cache') ?? undefined) as LinkAsk['cache'];
      ask.creditsCharged = res.headers.has('x-credits-charged') ? Number(res.headers.get('x-credits-charged')) : undefined;
      ask.contentType = res.headers.get('content-type') ?? undefined;
      if (res.status !== 200) readProblem(record, bytes.toString('utf8'), ask.contentType ?? null);
    } catch (err) {
      record.failure = failureOf(err);
    }
    record.latencyMs = performance.now() - started;
  }

  return {
    sendAsync(record) {
      asyncRecords.push(record);
      return sendAsyncCall(apiUrl, options.main.apiKey, record);
    },

    askLink(index) {
      const record: CallRecord = { index, tool: 'qr-generate', mode: 'link', cost: LINK_COST, body: { link: index % LINK_INPUTS } };
      const ask: LinkAsk = { record };
      asks.push(ask);
      return { record, answered: fetchLink(ask) };
    },

    async finish(audit) {
      const mismatches: string[] = [];
      const ended = asyncRecords.filter((r) => r.requestId && r.status !== undefined && !r.failure);
      const wanted = new Set(ended.map((r) => r.requestId!));
      const deliveredIds = () =>
        new Set(
          receiver
            .deliveries('/soak')
            .filter((d) => d.body?.event === 'call.completed')
            .map((d) => d.body.data.requestId as string),
        );
      await receiver
        .waitFor(() => [...wanted].every((id) => deliveredIds().has(id)), DELIVERY_GRACE_MS, 'call.completed for every asynchronous call')
        .catch(() => undefined);
      const got = deliveredIds();
      for (const id of wanted)
        if (!got.has(id)) mismatches.push(`asynchronous call ${id} ended but its call.completed never reached the endpoint`);
      const completions = receiver.deliveries('/soak').filter((d) => d.body?.event === 'call.completed').length;

      const other: Record<string, number> = {};
      for (const ask of asks) {
        const { record } = ask;
        if (record.status === 200 && !ask.contentType?.startsWith('image/'))
          mismatches.push(`render link ask ${record.index} answered 200 with ${ask.contentType}`);
        if (ask.cache === 'HIT' && ask.creditsCharged !== 0)
          mismatches.push(`render link ask ${record.index} was a cache hit that said it charged ${ask.creditsCharged}`);
        if (record.status !== 200) {
          const label = record.status === undefined ? 'no answer' : `${record.status} ${record.code ?? ''}`.trim();
          other[label] = (other[label] ?? 0) + 1;
        }
      }
      // Hits start no workflow and touch no ledger: the audit judges every other ask like a call.
      const linkAudit = await auditCalls({
        apiUrl,
        ownerToken: links.ownerToken,
        accountId: links.id,
        grants: links.credits,
        ...audit,
        calls: asks.filter((a) => !(a.record.status === 200 && a.cache === 'HIT')).map((a) => a.record),
      });
      mismatches.push(...linkAudit.mismatches.map((m) => `render links: ${m}`));
      return {
        asyncCalls: asyncRecords.length,
        asyncEnded: ended.length,
        delivered: got.size,
        redelivered: completions - got.size,
        links: {
          asked: asks.length,
          hits: asks.filter((a) => a.record.status === 200 && a.cache === 'HIT').length,
          misses: asks.filter((a) => a.record.status === 200 && a.cache === 'MISS').length,
          other,
          audit: linkAudit,
        },
        mismatches,
      };
    },

    close: () => receiver.close(),
  };
}

export function formatExtras(report: SoakExtrasReport): string {
  const l = report.links;
  const other =
    Object.entries(l.other)
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ') || 'none';
  return [
    `asynchronous calls: ${report.asyncCalls}, ended ${report.asyncEnded}; call.completed delivered for ${report.delivered} (${report.redelivered} delivered again)`,
    `render links: ${l.asked} asked, ${l.hits} hits (free), ${l.misses} misses (charged ${l.audit.chargedCredits} credits), other answers: ${other}`,
    `extras mismatches: ${report.mismatches.length}`,
    ...report.mismatches.slice(0, 20).map((m) => `  ${m}`),
  ].join('\n');
}
