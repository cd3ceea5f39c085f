//! The judgement of a monitor's run, made by the run's own call step once the call is settled
//! (activities/call-step.ts): its answer read with the monitor's assertions (a visual check's
//! capture compared with the baseline), the monitor's state moved (verdict.ts) in one guarded
//! write, the run recorded, and its notices sent: each an event (webhooks) and a mail to the
//! members the monitor names. A run refused for credits pauses the monitor and its schedule.
//! A scheduled run first takes the monitor (`begin`), and its judgement's write gives it back: a
//! run due while another is under way is skipped, before anything is reserved or run.
//! Safe to repeat: a step retried finds its run judged (on the monitor, or recorded) and only
//! sends its notices again, which the event log and the outbox take once each.
import type { Db } from 'mongodb';
import type { BlobStore } from '../../lib/blob-store.js';
import { isOutputBlob, storedJson } from '../../lib/output-blobs.js';
import type { ToolCallError, ToolCallInput, ToolCallResult } from '../../contracts/call.js';
import { findTool } from '../tools/index.js';
import { newEvent, type EventRecorder } from '../events/index.js';
import type { Mailer } from '../mail/index.js';
import type { Rect } from './definition.js';
import type { MonitorDoc, MonitorRunDoc, RunNotice } from './documents.js';
import { monitorMail, monitorRecipients } from './notify.js';
import { type MonitorSchedules, scheduledTimeOf } from './schedules.js';
import { createMonitorStore } from './store.js';
import { decide, NO_VISUAL_FINDINGS, type RunReport, type VisualFindings } from './verdict.js';
import { runSummary } from './views.js';

/** Compares two PNG captures (visual-diff.ts), on a thread of the worker's. */
export type CompareCaptures = (
  baseline: Uint8Array,
  current: Uint8Array,
  ignore: readonly Rect[],
) => Promise<{ ratio: number; diffPng: Uint8Array }>;

export interface MonitorJudgeDeps {
  db: Db;
  /** Where big outputs are (a capture's answer is one): the call's output is read back from there. */
  outputs: BlobStore;
  /** Where diff images are kept, as long as their runs (90 days). */
  diffs: BlobStore;
  compare: CompareCaptures;
  schedules: Pick<MonitorSchedules, 'pause'>;
  record: EventRecorder;
  /** Mails notices to the members the monitor names; none without it. */
  mailer?: Mailer;
  /** PUBLIC_BASE_URL, for the mails' links. */
  baseUrl: string;
}

/** A monitor's run as its call step hands it over once the call is settled. */
export interface MonitorRun {
  requestId: string;
  call: ToolCallInput;
  result: ToolCallResult;
  /** When the step began. */
  at: Date;
  /** The tool's run, all attempts; 0 when the call was refused first. */
  durationMs: number;
  /** The monitor as `begin` found it: read again only when it changed meanwhile. */
  monitor?: MonitorDoc;
}

/** A scheduled run holds its monitor this long past its tool's deadline (the step's own ledger steps and retries). */
export const RUN_LEASE_MARGIN_MS = 60_000;

/**
 * What a skipped run's workflow ends with (nobody waits for it: it is in no list, charged nothing,
 * not judged): the monitor's previous run was still under way.
 */
const RUN_SKIPPED: ToolCallError = {
  code: 'already_exists',
  message: "Skipped: the monitor's previous run was still under way. Nothing was charged.",
  extras: {},
};

/** Whether a run goes ahead, with the monitor as its lease found it; or what a skipped one answers. */
export type RunStart = { go: true; monitor?: MonitorDoc } | { go: false; result: ToolCallResult };

export function createMonitorJudge(deps: MonitorJudgeDeps) {
  const store = createMonitorStore(deps.db);

  async function outputOf(result: ToolCallResult): Promise<unknown> {
    if (!result.ok) return undefined;
    return isOutputBlob(result.output) ? JSON.parse((await storedJson(deps.outputs, result.output)).toString('utf8')) : result.output;
  }

  /** The visual assertions' findings: the capture kept as the latest (and as the baseline when it is the first), compared with the baseline. */
  async function visualFindings(monitor: MonitorDoc, output: unknown, runId: string, at: Date): Promise<VisualFindings> {
    const visual = monitor.assertions.flatMap((a, i) => (a.op === 'visual_change' ? [{ i, ignore: a.ignore }] : []));
    const field = findTool(monitor.tool)?.image?.field;
    const data = field && output && typeof output === 'object' ? (output as Record<string, unknown>)[field] : undefined;
    if (!visual.length || typeof data !== 'string') return NO_VISUAL_FINDINGS;
    const capture = Buffer.from(data, 'base64');
    const baseline = (await store.images(monitor._id))?.baseline;
    await store.keepCapture(monitor, capture, runId, at, !baseline);
    if (!baseline) return { ...NO_VISUAL_FINDINGS, baselineRunId: runId };
    const ratios = new Map<number, number>();
    const diffKeys = new Map<number, string>();
    for (const { i, ignore } of visual) {
      const { ratio, diffPng } = await deps.compare(baseline.png.buffer, capture, ignore);
      ratios.set(i, ratio);
      // Kept only for a change that may fire now (one already fired is not reported again).
      const assertion = monitor.assertions[i]!;
      if (assertion.op === 'visual_change' && ratio > assertion.threshold && !monitor.changedVisuals.includes(i))
        diffKeys.set(i, await deps.diffs.put(diffPng));
    }
    return { ratios, diffKeys, baselineRunId: baseline.runId };
  }

  /** Records the run and sends its notices (each once, however often this runs). */
  async function finish(run: MonitorRunDoc, monitor: Pick<MonitorDoc, '_id' | 'accountId' | 'name' | 'alert'>): Promise<void> {
    await store.recordRun(run);
    for (const notice of run.notices) await send(notice, run, monitor);
  }

  async function send(notice: RunNotice, run: MonitorRunDoc, monitor: Pick<MonitorDoc, '_id' | 'accountId' | 'name' | 'alert'>) {
    const at = new Date(run.at.getTime() + run.durationMs);
    const data = {
      monitorId: monitor._id,
      name: monitor.name,
      state: run.state,
      reason: notice.reason,
      ...(notice.reminder ? { reminder: true } : {}),
      run: runSummary(run),
    };
    // Paused first: its next runs would only be refused too.
    if (notice.kind === 'monitor.paused') await deps.schedules.pause(monitor._id, notice.reason ?? 'paused');
    await deps.record({ ...newEvent(monitor.accountId, notice.kind, data, at), id: notice.eventId });
    if (!deps.mailer) return;
    const mail = monitorMail(deps.baseUrl, notice, { id: monitor._id, name: monitor.name });
    for (const person of await monitorRecipients(deps.db, monitor.accountId, monitor.alert.notify))
      await deps.mailer.send({ to: person.email, ...mail }, { idempotencyKey: `monitor:${notice.eventId}:${person.id}` });
  }

  /**
   * Whether the run may go ahead: a scheduled run takes its monitor until its tool's deadline has
   * passed, and is skipped (nothing reserved, run, charged or recorded) while another holds it, or
   * when the monitor is gone. A step retried goes ahead whatever it finds: its first attempt may
   * have reserved the call, which only the call's life settles. A run asked for now runs beside
   * the schedule, as it always has.
   */
  async function begin(requestId: string, call: ToolCallInput, at: Date, retried: boolean): Promise<RunStart> {
    if (!scheduledTimeOf(requestId)) return { go: true };
    const until = new Date(at.getTime() + call.timeoutMs + RUN_LEASE_MARGIN_MS);
    const monitor = await store.lease(call.monitor!.id, requestId, at, until);
    if (monitor) return { go: true, monitor };
    return retried ? { go: true } : { go: false, result: { ok: false, error: RUN_SKIPPED } };
  }

  /** Judges a settled run of `run.call.monitor`; a monitor deleted meanwhile leaves the run unjudged. */
  async function judge(run: MonitorRun, retried: boolean): Promise<void> {
    const monitorId = run.call.monitor!.id;
    if (retried) {
      const recorded = await store.runById(run.requestId);
      const monitor = recorded && (await store.byId(monitorId));
      if (recorded && monitor) return finish(recorded, monitor);
    }
    let monitor = (!retried && run.monitor) || (await store.byId(monitorId));
    if (!monitor) return;
    if (monitor.lastRun?._id === run.requestId) return finish(monitor.lastRun, monitor);
    const output = await outputOf(run.result);
    const visual = run.result.ok ? await visualFindings(monitor, output, run.requestId, run.at) : NO_VISUAL_FINDINGS;
    const scheduledAt = scheduledTimeOf(run.requestId);
    const report: RunReport = {
      requestId: run.requestId,
      result: run.result,
      at: run.at,
      durationMs: run.durationMs,
      charged: run.result.ok ? run.result.charged : 0,
      ...(scheduledAt ? { scheduledAt } : {}),
    };
    for (;;) {
      const decision = decide(monitor, report, output, visual, new Date());
      // The run's hold on the monitor given back in the same write (a run that outlived it holds nothing).
      const set = monitor.running?.runId === run.requestId ? { ...decision.set, running: null } : decision.set;
      // Applied only to the monitor as read (`seq`): its name, account and alert are those the notices need.
      if (await store.setIf(monitor._id, monitor.seq, set)) return finish(decision.run, monitor);
      // Changed meanwhile (another run judged, a member paused it): decided again on what it is now.
      monitor = await store.byId(monitorId);
      if (!monitor) return;
      if (monitor.lastRun?._id === run.requestId) return finish(monitor.lastRun, monitor);
    }
  }

  return { begin, judge };
}

export type MonitorJudge = ReturnType<typeof createMonitorJudge>;
