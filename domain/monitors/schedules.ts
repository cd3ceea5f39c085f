//! A monitor's runs as Temporal keeps them: one Schedule per monitor (`monitor-<id>`) whose action
//! starts the same `toolCall` workflow a REST call starts, on its tool's queue, with `via: monitor`
//! and the monitor's id, so each run is reserved, run and settled as any call and then judged by
//! its step (activities/call-step.ts). A run still going when the next is due skips that one: the
//! next run's step finds the monitor held and ends at once, nothing charged (judge.ts `begin`), so
//! Temporal's overlap policy is `ALLOW_ALL` and its scheduler need not follow each run to its end
//! (schedules made with its `SKIP` keep it, which skips the same runs, until their monitor's next
//! update). Interval runs are spread over the interval by a phase fixed per monitor, so a thousand
//! monitors of a minute start evenly through it rather than together, and within their second by a
//! jitter (phases are whole seconds); cron runs are spread by a longer jitter. Paused, updated and
//! deleted with the monitor.
import { createHash } from 'node:crypto';
import { ScheduleNotFoundError, type Client, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { randomBase62 } from '../../lib/ids.js';
import { CALL_WORKFLOW_TASK_TIMEOUT_MS, SEARCH_ATTRIBUTES, WORKFLOW_TYPES, callTaskQueue } from '../../contracts/temporal-names.js';
import type { ToolCallInput } from '../../contracts/call.js';
import { findTool } from '../tools/index.js';
import { durationSeconds, type MonitorSchedule } from './definition.js';
import type { MonitorDoc } from './documents.js';

/** Cron runs start up to this long after their time: a thousand monitors at the top of the hour do not start at once. */
export const CRON_JITTER_MS = 30_000;
/**
 * Interval runs start up to this long after their phase's second, each run at another point of
 * it: the monitors sharing a second (a thousand of a minute are seventeen to a second) do not wake
 * Temporal's scheduler, and then the workers and the database, all at once.
 */
export const INTERVAL_JITTER_MS = 1_000;
/** Runs missed while Temporal was down are made up only this far back (one, at a minute's interval). */
const CATCHUP_WINDOW_MS = 60_000;

/** Overlapping runs are all started; the run's own step skips one due while another is under way. */
const POLICIES = { overlap: 'ALLOW_ALL', catchupWindow: CATCHUP_WINDOW_MS } as const;

export const scheduleIdOf = (monitorId: string) => `monitor-${monitorId}`;

/**
 * The workflow id of the monitor's scheduled runs, to which Temporal appends each run's time
 * (`-2026-05-01T09:30:00Z`): the run's request id, read in usage as a call's.
 */
export const runIdBase = (monitor: Pick<MonitorDoc, '_id' | 'accountId'>) => `call-${monitor.accountId}-${monitor._id}`;

/** The time a scheduled run was meant for, read from its request id; undefined for a run asked for now. */
export function scheduledTimeOf(requestId: string): Date | undefined {
  const m = /-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/.exec(requestId);
  return m ? new Date(m[1]!) : undefined;
}

/** The monitor's phase in an interval of `everyMs`: fixed by its id, in whole seconds (Temporal's schedules keep no finer time). */
export function phaseMs(monitorId: string, everyMs: number): number {
  const seconds = Math.max(1, Math.floor(everyMs / 1000));
  return (createHash('sha256').update(monitorId).digest().readUInt32BE(0) % seconds) * 1000;
}

export function scheduleSpec(monitorId: string, schedule: MonitorSchedule): ScheduleSpec {
  if ('every' in schedule) {
    const everyMs = durationSeconds(schedule.every)! * 1000;
    return { intervals: [{ every: everyMs, offset: phaseMs(monitorId, everyMs) }], jitter: INTERVAL_JITTER_MS };
  }
  return { cronExpressions: [schedule.cron], timezone: schedule.timezone ?? 'UTC', jitter: CRON_JITTER_MS };
}

/** The call each run makes: the monitor's tool and input, charged to its account, its spending capped as a key's. */
export function runInput(monitor: Pick<MonitorDoc, '_id' | 'accountId' | 'tool' | 'input' | 'monthlyCreditLimit'>): ToolCallInput {
  const tool = findTool(monitor.tool);
  if (!tool) throw new Error(`monitor ${monitor._id} names a tool that is no longer listed: ${monitor.tool}`);
  return {
    accountId: monitor.accountId,
    tool: tool.name,
    pool: tool.pool,
    execution: tool.execution ?? 'local',
    oneStep: true,
    cost: tool.cost,
    timeoutMs: tool.timeoutMs,
    input: monitor.input,
    via: 'monitor',
    monitor: { id: monitor._id },
    keyId: monitor._id,
    ...(monitor.monthlyCreditLimit !== null ? { keyCreditLimit: monitor.monthlyCreditLimit } : {}),
  };
}

/** How a run's workflow starts: on its tool's queue, under `workflowId`, searchable as any call. */
function startOptions(monitor: MonitorDoc, workflowId: string) {
  const tool = findTool(monitor.tool)!;
  return {
    taskQueue: callTaskQueue(tool),
    workflowId,
    args: [runInput(monitor)],
    workflowTaskTimeout: CALL_WORKFLOW_TASK_TIMEOUT_MS,
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SEARCH_ATTRIBUTES.accountId, value: monitor.accountId },
      { key: SEARCH_ATTRIBUTES.tool, value: tool.name },
    ]),
  };
}

const scheduleAction = (monitor: MonitorDoc): ScheduleOptionsAction => ({
  type: 'startWorkflow',
  workflowType: WORKFLOW_TYPES.toolCall,
  ...startOptions(monitor, runIdBase(monitor)),
});

const isPaused = (monitor: MonitorDoc) => monitor.state === 'paused';

export function createMonitorSchedules(client: Client) {
  const handle = (monitorId: string) => client.schedule.getHandle(scheduleIdOf(monitorId));

  return {
    /** Creates the monitor's schedule (paused when the monitor is). */
    async create(monitor: MonitorDoc): Promise<void> {
      await client.schedule.create({
        scheduleId: scheduleIdOf(monitor._id),
        spec: scheduleSpec(monitor._id, monitor.schedule),
        action: scheduleAction(monitor),
        policies: POLICIES,
        state: { paused: isPaused(monitor), note: monitor.stateReason ?? undefined },
      });
    },

    /** Makes the schedule say what the monitor now says: its times, its call, paused or not (and its policies today's). */
    async update(monitor: MonitorDoc): Promise<void> {
      await handle(monitor._id).update((previous) => ({
        ...previous,
        policies: { ...previous.policies, ...POLICIES },
        spec: scheduleSpec(monitor._id, monitor.schedule),
        action: scheduleAction(monitor),
        state: { ...previous.state, paused: isPaused(monitor), note: monitor.stateReason ?? undefined },
      }));
    },

    /** Stops its runs (`note`: why, shown in Temporal's UI); a schedule already gone has nothing to pause. */
    async pause(monitorId: string, note: string): Promise<void> {
      try {
        await handle(monitorId).pause(note);
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      }
    },

    /** Deletes it; one already gone is fine. */
    async remove(monitorId: string): Promise<void> {
      try {
        await handle(monitorId).delete();
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      }
    },

    /** When its next run is due; null when none is (paused, or no schedule). */
    async nextRunAt(monitorId: string): Promise<Date | null> {
      try {
        const described = await handle(monitorId).describe();
        return described.state.paused ? null : (described.info.nextActionTimes[0] ?? null);
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) return null;
        throw err;
      }
    },

    /** Starts one run now, beside the schedule: the same call, under a request id of its own. */
    async runNow(monitor: MonitorDoc): Promise<string> {
      const workflowId = `${runIdBase(monitor)}-now-${randomBase62(12)}`;
      await client.workflow.start(WORKFLOW_TYPES.toolCall, {
        ...startOptions(monitor, workflowId),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
      return workflowId;
    },
  };
}

export type MonitorSchedules = ReturnType<typeof createMonitorSchedules>;
