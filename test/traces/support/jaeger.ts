//! Reading traces back from the Jaeger that `npm run test:traces` runs beside the stack (its apps
//! trace every call: scripts/stack/test-stack.ts), for test/traces/*.test.ts: a trace by the id an
//! answer's `traceparent` names, waited for until complete, a search by tags, and the shapes the
//! suites check (one tree, a span's ancestry, every attribute as one text for secrets).
import type { ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer } from '../../helpers/api.js';
import { eventually } from '../../helpers/webhook-receiver.js';

/** The API's and workers' batch exporters send within seconds; a trace not complete by then is not coming. */
export const TRACE_WAIT_MS = 60_000;

export interface JaegerSpan {
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; traceID: string; spanID: string }>;
  tags: Array<{ key: string; value: unknown }>;
  logs: Array<{ fields: Array<{ key: string; value: unknown }> }>;
  processID: string;
}
export interface JaegerTrace {
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: Array<{ key: string; value: unknown }> }>;
}

/** The stack's Jaeger (scripts/test.mjs --traces starts it before the apps). */
function jaeger(): string {
  const url = process.env.JAEGER_QUERY_URL;
  if (!url) throw new Error('no JAEGER_QUERY_URL: run this suite with `npm run test:traces`');
  return url;
}

/** The trace id of an answer's `traceparent`. */
export function traceIdOf(res: Answer): string {
  const header = res.headers.get('traceparent') ?? '';
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header);
  if (!match) throw new Error(`no sampled traceparent on the answer: "${header}"`);
  return match[1]!;
}

/** The trace once every span `complete` wants is in it. */
export async function traceOf(traceId: string, complete: (t: JaegerTrace) => boolean): Promise<JaegerTrace> {
  const deadline = Date.now() + TRACE_WAIT_MS;
  let last: JaegerTrace | undefined;
  for (;;) {
    const res = await fetch(`${jaeger()}/api/traces/${traceId}`);
    if (res.ok) {
      last = ((await res.json()) as { data: JaegerTrace[] }).data[0];
      if (last && complete(last)) return last;
    } else await res.arrayBuffer();
    if (Date.now() > deadline)
      throw new Error(
        `trace ${traceId} incomplete after ${TRACE_WAIT_MS / 1000} s: ${last ? last.spans.map((s) => s.operationName).join(', ') : 'not found'}`,
      );
    await sleep(500);
  }
}

/** The traces a search of Jaeger's query API finds (service, operation and tags), once `found` holds. */
export async function search(query: Record<string, string>, found: (ts: JaegerTrace[]) => boolean): Promise<JaegerTrace[]> {
  return eventually(
    async () => {
      const res = await fetch(`${jaeger()}/api/traces?${new URLSearchParams({ limit: '20', lookback: '1h', ...query })}`);
      return res.ok ? ((await res.json()) as { data: JaegerTrace[] }).data : [];
    },
    found,
    TRACE_WAIT_MS,
    `traces of ${JSON.stringify(query)}`,
  );
}

export const names = (t: JaegerTrace) => t.spans.map((s) => s.operationName);
export const tag = (span: JaegerSpan, key: string) => span.tags.find((x) => x.key === key)?.value;
/** A span's attributes as one object, for `t.like`. */
export const tagsOf = (span: JaegerSpan | undefined) => Object.fromEntries((span?.tags ?? []).map((x) => [x.key, x.value]));
export const byName = (t: JaegerTrace, name: string) => t.spans.find((s) => s.operationName === name);
/** What a call's trace has, in this order down the tree: request, start, workflow, step, its parts. */
export const callSpans = (tool: string) => [
  'POST /api/v1/tools/:tool',
  'StartWorkflow:toolCall',
  'RunWorkflow:toolCall',
  'StartActivity:callStep',
  'RunActivity:callStep',
  'ledger reserve',
  `tool ${tool}`,
];
export const hasAll = (wanted: string[]) => (t: JaegerTrace) => wanted.every((name) => names(t).includes(name));

/** Each span's parent is in the trace, and exactly one span (the HTTP request's) has none. */
export function assertOneTree(t: ExecutionContext, trace: JaegerTrace) {
  const ids = new Set(trace.spans.map((s) => s.spanID));
  const roots = trace.spans.filter((s) => !s.references.some((r) => r.refType === 'CHILD_OF'));
  t.deepEqual(
    roots.map((s) => s.operationName),
    ['POST /api/v1/tools/:tool'],
    'one root: the HTTP request',
  );
  for (const span of trace.spans) {
    for (const ref of span.references.filter((r) => r.refType === 'CHILD_OF'))
      t.true(ids.has(ref.spanID), `${span.operationName}'s parent is in the trace`);
  }
}

/** The parent chain of `span`, by name, up to the root. */
export function chainOf(trace: JaegerTrace, span: JaegerSpan | undefined): string[] {
  const byId = new Map(trace.spans.map((s) => [s.spanID, s]));
  const chain: string[] = [];
  for (let at = span; at; at = byId.get(at.references.find((r) => r.refType === 'CHILD_OF')?.spanID ?? '')) chain.push(at.operationName);
  return chain;
}

/** The parent chain of the span named `name`, up to the root. */
export const ancestry = (trace: JaegerTrace, name: string): string[] => chainOf(trace, byName(trace, name));

/** The spans whose parent is the span named `name`. */
export function childrenOf(trace: JaegerTrace, name: string): JaegerSpan[] {
  const parent = byName(trace, name)?.spanID;
  return trace.spans.filter((s) => s.references.some((r) => r.refType === 'CHILD_OF' && r.spanID === parent));
}

/** Every attribute, event field and process tag of the trace, as one text. */
export const everything = (trace: JaegerTrace) =>
  JSON.stringify([trace.spans.map((s) => [s.operationName, s.tags, s.logs]), Object.values(trace.processes)]);
