//! Where one tool call's time goes, hop by hop: the caller's send and receive times around the
//! event times of the call's workflow history (and the local activity markers inside its
//! workflow tasks). Every process runs on one machine here, so the clocks agree.
import { Connection, Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { percentile } from './measure.js';

const EventType = proto.temporal.api.enums.v1.EventType;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** One call as the caller saw it: epoch ms (sub-ms precision) and its workflow id (X-Request-Id). */
export interface TimedCall {
  workflowId: string;
  sentAt: number;
  answeredAt: number;
}

/** Epoch ms with sub-millisecond precision, comparable with history event times. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** A tool call that must answer 200, timed on the caller's clock; `send` makes it. */
export async function timedCall(
  what: string,
  send: () => Promise<{ status: number; headers: Headers; body: unknown }>,
): Promise<TimedCall> {
  const sentAt = epochMs();
  const res = await send();
  const answeredAt = epochMs();
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { workflowId: res.headers.get('x-request-id')!, sentAt, answeredAt };
}

const toMs = (t: HistoryEvent['eventTime']) => Number(t!.seconds) * 1000 + (t!.nanos ?? 0) / 1e6;

/** Ordered hops of one call, in ms; a hop the call did not have (no remote activity) is absent. */
export type Hops = Map<string, number>;

interface LocalActivityMark {
  type: string;
  /** "Perceived" completion: its workflow task's start plus the local activity's run time. */
  completedAt: number;
  /** A call step's own account of its parts (activities/call-step.ts `ms`), when its result is inline JSON. */
  parts?: Record<string, number>;
}

/** The local activities a marker event records (type and completion time), when it is one. */
function localActivityMark(e: HistoryEvent): LocalActivityMark | undefined {
  const attrs = e.markerRecordedEventAttributes;
  if (attrs?.markerName !== 'core_local_activity') return undefined;
  const data = attrs.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
  const type = String(parsed.activity_type ?? parsed.activityType ?? '?');
  const complete = (parsed.complete_time ?? parsed.completeTime) as { seconds?: number | string; nanos?: number } | string | undefined;
  if (complete === undefined) return undefined;
  const completedAt =
    typeof complete === 'string' ? Date.parse(complete) : Number(complete.seconds ?? 0) * 1000 + (complete.nanos ?? 0) / 1e6;
  return { type, completedAt, parts: stepParts(attrs.details?.result?.payloads?.[0]) };
}

function stepParts(
  payload: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null } | undefined,
): Record<string, number> | undefined {
  const encoding = payload?.metadata?.encoding;
  if (!payload?.data || !encoding || Buffer.from(encoding).toString() !== 'json/plain') return undefined;
  const ms = (JSON.parse(Buffer.from(payload.data).toString('utf8')) as { ms?: unknown }).ms;
  return ms && typeof ms === 'object' ? (ms as Record<string, number>) : undefined;
}

/**
 * The hops of one call:
 * - `request -> started`: the caller's send to WorkflowExecutionStarted (HTTP, auth, validation,
 *   the API's start RPC);
 * - per workflow task: `wft N dispatch` (scheduled -> started) and `wft N run` (started ->
 *   completed), the run split by the local activities it ran (`la <type>`) when markers say;
 * - per remote activity: `<type> schedule-to-start` and `<type> run`; the gap from a result to
 *   the next workflow task is in that task's dispatch;
 * - `completed -> answer`: WorkflowExecutionCompleted to the caller's receipt of the answer.
 */
export function hopsOf(call: TimedCall, events: HistoryEvent[]): Hops {
  const hops: Hops = new Map();
  const time = (e: HistoryEvent) => toMs(e.eventTime);
  const started = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  const completed = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  if (!started || !completed) throw new Error(`${call.workflowId}: history without start or completion`);
  hops.set('request -> started', time(started) - call.sentAt);

  let wft = 0;
  let wftScheduled: number | undefined;
  let wftStarted: number | undefined;
  let lastResult = time(started);
  const activityScheduled = new Map<string, { at: number; type: string }>();
  const activityStarted = new Map<string, number>();
  // Local activities of one task run one after another from the task's start.
  let lastMark: number | undefined;
  for (const e of events) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
        wftScheduled = time(e);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        wftStarted = time(e);
        lastMark = wftStarted;
        wft++;
        hops.set(`wft ${wft} dispatch`, wftStarted - Math.max(lastResult, wftScheduled ?? wftStarted));
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        hops.set(`wft ${wft} run`, time(e) - (wftStarted ?? time(e)));
        break;
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        const mark = localActivityMark(e);
        if (mark && lastMark !== undefined) {
          const key = `wft ${wft} run: la ${mark.type}`;
          hops.set(key, (hops.get(key) ?? 0) + mark.completedAt - lastMark);
          for (const [part, ms] of Object.entries(mark.parts ?? {})) hops.set(`${key}: ${part}`, ms);
          lastMark = mark.completedAt;
        }
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const type = e.activityTaskScheduledEventAttributes?.activityType?.name ?? 'activity';
        activityScheduled.set(String(e.eventId), { at: time(e), type });
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const id = String(e.activityTaskStartedEventAttributes?.scheduledEventId);
        const scheduled = activityScheduled.get(id);
        activityStarted.set(id, time(e));
        if (scheduled) hops.set(`${scheduled.type} schedule-to-start`, time(e) - scheduled.at);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const id = String(e.activityTaskCompletedEventAttributes?.scheduledEventId);
        const scheduled = activityScheduled.get(id);
        if (scheduled) hops.set(`${scheduled.type} run`, time(e) - (activityStarted.get(id) ?? scheduled.at));
        lastResult = time(e);
        break;
      }
    }
  }
  hops.set('completed -> answer', call.answeredAt - time(completed));
  hops.set('total', call.answeredAt - call.sentAt);
  return hops;
}

/** Reads the histories of `calls` and summarises each hop: p50 and mean over the calls. */
export async function callAnatomy(temporalAddress: { address: string; namespace: string }, calls: TimedCall[]) {
  const connection = await Connection.connect({ address: temporalAddress.address });
  const client = new Client({ connection, namespace: temporalAddress.namespace });
  try {
    const all: Hops[] = [];
    for (const call of calls) {
      const history = await client.workflow.getHandle(call.workflowId).fetchHistory();
      all.push(hopsOf(call, history.events ?? []));
    }
    const names = [...new Set(all.flatMap((h) => [...h.keys()]))];
    return names.map((hop) => {
      const values = all
        .map((h) => h.get(hop))
        .filter((v): v is number => v !== undefined)
        .sort((a, b) => a - b);
      return {
        hop,
        calls: values.length,
        'p50 ms': +percentile(values, 50).toFixed(2),
        'mean ms': +(values.reduce((s, v) => s + v, 0) / values.length).toFixed(2),
      };
    });
  } finally {
    await connection.close();
  }
}

/** Prints a hop table (callAnatomy's rows) under what it measured. */
export function printHops(label: string, hops: Awaited<ReturnType<typeof callAnatomy>>): void {
  console.log(`\nWhere the time of '${label.trim()}' goes, hop by hop (the last ${hops[0]?.calls ?? 0} calls; bench/call-anatomy.ts):`);
  console.table(hops);
}
