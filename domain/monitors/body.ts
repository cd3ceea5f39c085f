//! A monitor's body read into what is stored: its tool's input checked as a call's would be (no
//! secrets: a schedule would keep them), its schedule, assertions and alert checked
//! (definition.ts), the members it names checked to be the account's; every problem at once, as
//! 400 `invalid_request`. A new monitor's document, and the fields a change sets.
import type { Db } from 'mongodb';
import { ServiceError } from '../../contracts/errors.js';
import { newId } from '../../lib/ids.js';
import { splitSecrets } from '../../lib/sealed.js';
import { findTool, type ToolDefinition } from '../tools/index.js';
import { invalidRequest, readAlert, readAssertions, scheduleProblems, type FieldError } from './definition.js';
import type { MonitorBody } from './body-schema.js';
import type { MonitorDoc } from './documents.js';
import { notMembers } from './notify.js';
import { FRESH_STREAKS, resumedHealth } from './states.js';

export interface ReadingDeps {
  db: Db;
  /** The tool's input as a call would have it: validated (defaults applied), prechecked, its targets admitted; throws as the call would. */
  checkInput: (tool: ToolDefinition, input: Record<string, unknown>) => Record<string, unknown>;
  /** MONITOR_MIN_INTERVAL_S. */
  minIntervalS: number;
}

/** The input a monitor's runs send: as a call's, without secrets. */
function readInput(
  deps: ReadingDeps,
  tool: ToolDefinition,
  input: Record<string, unknown>,
): { input: Record<string, unknown>; errors: FieldError[] } {
  const secrets = Object.keys(splitSecrets(input, tool.secretFields ?? []).secret);
  if (secrets.length)
    return { input, errors: secrets.map((f) => ({ field: `/input/${f}`, message: 'cannot be kept by a monitor (it is secret)' })) };
  try {
    return { input: deps.checkInput(tool, structuredClone(input)), errors: [] };
  } catch (err) {
    // What a call would refuse (a bad field, a refused target, a port) is a definition that cannot run.
    if (!(err instanceof ServiceError) || err.code === 'unavailable' || err.code === 'internal_error') throw err;
    const fields = (err.extras.errors ?? [{ field: '/', message: err.message }]) as FieldError[];
    return { input, errors: fields.map((e) => ({ field: `/input${e.field === '/' ? '' : e.field}`, message: e.message })) };
  }
}

export type Definition = Awaited<ReturnType<typeof readDefinition>>;

/** The definition of `body` checked as a whole. */
export async function readDefinition(deps: ReadingDeps, accountId: string, body: MonitorBody) {
  const tool = findTool(body.tool);
  if (!tool) throw invalidRequest([{ field: '/tool', message: 'is not a tool of the catalogue (GET /api/v1/tools)' }]);
  const { input, errors } = readInput(deps, tool, body.input);
  errors.push(...scheduleProblems(body.schedule, deps.minIntervalS));
  const read = readAssertions(body.assertions, tool, input);
  const { alert, errors: alertErrors } = readAlert(body.alert);
  errors.push(...read.errors, ...alertErrors);
  const strangers = await notMembers(
    deps.db,
    accountId,
    alert.notify.filter((n) => n !== 'owners'),
  );
  for (const id of strangers)
    errors.push({ field: `/alert/notify/${alert.notify.indexOf(id)}`, message: 'is not a member of the account' });
  if (errors.length) throw invalidRequest(errors);
  return { tool, input, assertions: read.assertions, alert };
}

/** A new monitor, pending (or paused, when asked), as it is stored. */
export function newMonitorDoc(accountId: string, body: MonitorBody, definition: Definition, now = new Date()): MonitorDoc {
  return {
    _id: newId('mon'),
    accountId,
    name: body.name,
    tool: definition.tool.name,
    input: definition.input,
    schedule: body.schedule,
    assertions: definition.assertions,
    alert: definition.alert,
    monthlyCreditLimit: body.monthlyCreditLimit ?? null,
    ...(body.paused ? { state: 'paused' as const, stateReason: 'paused' } : { state: 'pending' as const, stateReason: null }),
    streaks: FRESH_STREAKS,
    previous: {},
    changedVisuals: [],
    baselineRunId: null,
    hours: {},
    recent: [],
    lastRun: null,
    notifiedAt: null,
    seq: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** The fields a change sets, from the monitor as it is and the body's fields. */
export async function changedFields(deps: ReadingDeps, doc: MonitorDoc, body: Partial<MonitorBody>): Promise<Partial<MonitorDoc>> {
  const merged: MonitorBody = {
    name: body.name ?? doc.name,
    tool: body.tool ?? doc.tool,
    input: body.input ?? (body.tool && body.tool !== doc.tool ? {} : doc.input),
    schedule: body.schedule ?? doc.schedule,
    assertions: body.assertions ?? doc.assertions,
    alert: { ...doc.alert, ...body.alert },
  };
  const definition = await readDefinition(deps, doc.accountId, merged);
  const set: Partial<MonitorDoc> = {
    name: merged.name,
    tool: definition.tool.name,
    input: definition.input,
    schedule: merged.schedule,
    assertions: definition.assertions,
    alert: definition.alert,
    ...(body.monthlyCreditLimit !== undefined ? { monthlyCreditLimit: body.monthlyCreditLimit } : {}),
  };
  // What a change assertion compares with belongs to the assertions it was read for; a baseline to the page it shows.
  if (body.assertions || body.tool || body.input) Object.assign(set, { previous: {}, changedVisuals: [] });
  if (body.tool || body.input) set.baselineRunId = null;
  if (body.paused === true && doc.state !== 'paused')
    Object.assign(set, { state: 'paused', stateReason: 'paused', streaks: FRESH_STREAKS });
  if (body.paused === false && doc.state === 'paused') {
    const health = resumedHealth();
    Object.assign(set, { state: health.state, stateReason: health.reason, streaks: health.streaks });
  }
  return set;
}
