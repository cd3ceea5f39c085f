//! Where one tool call's time goes, hop by hop: the caller's send and receive times around the
//! event times of the call's workflow history (and the local activity markers inside its
//! workflow tasks). Every process runs on one machine here, so the clocks agree.
import { Connection, Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { percentile } from './measure.js';
import { temporalConnectOptions, type TemporalSettings } from '../lib/config-temporal.js';

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
  /**
   * When the workflow scheduled it, on the worker's clock (`original_schedule_time`): the task's
   * time before it (the poll's answer, the workflow's first activation) is not the activity's.
   */
  scheduledAt?: number;
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
  const completedAt = markerTime(parsed.complete_time ?? parsed.completeTime);
  if (completedAt === undefined) return undefined;
  const scheduledAt = markerTime(parsed.original_schedule_time ?? parsed.originalScheduleTime);
  return { type, completedAt, scheduledAt, parts: stepParts(attrs.details?.result?.payloads?.[0]) };
}

/** A marker's timestamp (a protobuf Timestamp as JSON, or an RFC 3339 string) in epoch ms. */
function markerTime(value: unknown): number | undefined {
  if (typeof value === 'string') return Date.parse(value);
  if (typeof value !== 'object' || value === null) return undefined;
  const { seconds, nanos } = value as { seconds?: number | string; nanos?: number };
  return Number(seconds ?? 0) * 1000 + (nanos ?? 0) / 1e6;
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
 *   completed), the run split by the local activities it ran (`la <type>`) when markers say:
 *   `before la <type>` is the task's time until the workflow scheduled it (the poll's answer
 *   reaching the worker, the workflow's activation), `after la <type>` the rest of the task once
 *   the last one was done (the workflow's next activation, its completion sent and recorded);
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
  // Local activities of one task run one after another. A marker's completion time is "perceived"
  // (the task's start plus the run time), so the runs chain on that clock (lastMark), while where
  // each one really started and ended comes from its schedule time (lastEnd).
  let lastMark: number | undefined;
  let lastEnd: number | undefined;
  // A task's markers come after its completion in the history; `after` is named by its last one.
  let wftCompleted: number | undefined;
  let afterKey: string | undefined;
  for (const e of events) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
        wftScheduled = time(e);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        wftStarted = time(e);
        lastMark = wftStarted;
        lastEnd = wftStarted;
        afterKey = undefined;
        wft++;
        hops.set(`wft ${wft} dispatch`, wftStarted - Math.max(lastResult, wftScheduled ?? wftStarted));
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        wftCompleted = time(e);
        hops.set(`wft ${wft} run`, wftCompleted - (wftStarted ?? wftCompleted));
        break;
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        const mark = localActivityMark(e);
        if (mark && lastMark !== undefined && lastEnd !== undefined) {
          const key = `wft ${wft} run: la ${mark.type}`;
          const run = mark.completedAt - lastMark;
          const start = mark.scheduledAt !== undefined && mark.scheduledAt > lastEnd ? mark.scheduledAt : lastEnd;
          const before = `wft ${wft} run: before la ${mark.type}`;
          if (start > lastEnd) hops.set(before, (hops.get(before) ?? 0) + start - lastEnd);
          hops.set(key, (hops.get(key) ?? 0) + run);
          for (const [part, ms] of Object.entries(mark.parts ?? {})) hops.set(`${key}: ${part}`, ms);
          lastMark = mark.completedAt;
          lastEnd = start + run;
          if (afterKey) hops.delete(afterKey);
          afterKey = `wft ${wft} run: after la ${mark.type}`;
          if (wftCompleted !== undefined) hops.set(afterKey, wftCompleted - lastEnd);
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
export async function callAnatomy(temporal: TemporalSettings, calls: TimedCall[]) {
  const connection = await Connection.connect(temporalConnectOptions(temporal));
  const client = new Client({ connection, namespace: temporal.namespace });
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
