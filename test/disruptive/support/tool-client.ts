//! One tool call as a client sees it, recorded for the ledger audit: the answer (status, code,
//! request id) or, when the connection failed, the failure instead.
import type { MixEntry } from './call-mix.js';

export interface CallRecord {
  index: number;
  tool: string;
  /** How it was asked when not as a synchronous POST (the soak's asynchronous calls and render links). */
  mode?: 'async' | 'link';
  cost: number;
  body: Record<string, unknown>;
  idempotencyKey?: string;
  /** Free-form label of when the call was made (the chaos phase). */
  phase?: string;
  /** For a client's repeat of an earlier call: the phase that call was first sent in. */
  firstSentDuring?: string;
  status?: number;
  /** The problem's `code` for an error answer. */
  code?: string;
  /** The problem's `detail` for an error answer: what the caller was told went wrong. */
  detail?: string;
  /** X-Request-Id: for a call that started a workflow, its id, which is the usage entry's. */
  requestId?: string;
  replayed?: boolean;
  /** Why there is no answer (connection reset, timeout). */
  failure?: string;
  /** The answer was learnt by asking again with the same Idempotency-Key. */
  reasked?: boolean;
  /** Times the client sent it again at once because no replica answered (chaos-run.ts). */
  retries?: number;
  latencyMs?: number;
  /** A 200 whose body is not a JSON object: an answer half-read from somewhere. */
  brokenBody?: true;
}

/** How long a client waits for an answer: past every tool deadline plus the API's grace. */
const CLIENT_TIMEOUT_MS = 180_000;

export async function sendCall(apiUrl: string, apiKey: string, record: CallRecord): Promise<CallRecord> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  if (record.idempotencyKey) headers['idempotency-key'] = record.idempotencyKey;
  const started = performance.now();
  try {
    const res = await fetch(`${apiUrl}/api/v1/tools/${record.tool}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(record.body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    record.status = res.status;
    record.requestId = res.headers.get('x-request-id') ?? undefined;
    record.replayed = res.headers.get('idempotent-replayed') === 'true';
    record.failure = undefined;
    if (res.status === 200 && !isJsonObject(text)) record.brokenBody = true;
    if (res.status !== 200) readProblem(record, text, res.headers.get('content-type'));
  } catch (err) {
    record.failure = failureOf(err);
  }
  record.latencyMs = performance.now() - started;
  return record;
}

/** The problem's `code` and `detail` of an error answer, or what came instead of problem+json. */
export function readProblem(record: CallRecord, text: string, contentType: string | null): void {
  try {
    const problem = JSON.parse(text) as { code?: string; detail?: string };
    record.code = problem.code;
    record.detail = problem.detail;
  } catch {
    record.code = `not-json:${contentType}`;
  }
}

/** Why a request got no answer: the socket's error when fetch wraps one. */
export const failureOf = (err: unknown): string => ((err as Error).cause ? String((err as Error).cause) : (err as Error).message);

/** Opens an account through the operator API, with `credits` to spend. */
export async function openAccount(apiUrl: string, adminToken: string, name: string, credits: number): Promise<TestAccount> {
  const res = await fetch(`${apiUrl}/api/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, credits }),
  });
  if (res.status !== 201) throw new Error(`could not open the ${name} account: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { account: { id: string }; ownerToken: string; apiKey: { key: string } };
  return { id: body.account.id, ownerToken: body.ownerToken, apiKey: body.apiKey.key, credits };
}

export interface TestAccount {
  id: string;
  ownerToken: string;
  apiKey: string;
  credits: number;
}

export function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function newRecord(index: number, entry: MixEntry, extras: Partial<CallRecord> = {}): CallRecord {
  return { index, tool: entry.tool, cost: entry.cost, body: entry.body(index), ...extras };
}
