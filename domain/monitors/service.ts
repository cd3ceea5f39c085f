//! What the account API (and MCP) does with monitors, below HTTP: create one (its definition
//! checked, then stored with its audit entry, then its schedule made), list, read, change (pause
//! and resume included: the schedule follows), delete (schedule first), run one now, accept the
//! latest capture as a visual monitor's baseline, and read its runs.
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { ServiceError } from '../../contracts/errors.js';
import { auditDraft, changesOf, createAuditLog, type AuditContext } from '../audit/index.js';
import { changedFields, newMonitorDoc, readDefinition, type ReadingDeps } from './body.js';
import type { MonitorBody } from './body-schema.js';
import { invalidRequest } from './definition.js';
import type { MonitorDoc } from './documents.js';
import { createMonitorSchedules } from './schedules.js';
import { createMonitorStore, type Position } from './store.js';
import { monitorDefinition, monitorView, runView, type DiffLinker, type MonitorView } from './views.js';

/** The fields an audit entry shows of a monitor. */
const AUDITED = ['name', 'tool', 'input', 'schedule', 'assertions', 'alert', 'monthlyCreditLimit', 'paused'] as const;

export interface MonitorServiceDeps extends ReadingDeps {
  db: Db;
  client: Client;
  /** MONITORS_PER_ACCOUNT. */
  perAccount: number;
}

const notFound = (id: string) => new ServiceError('not_found', `There is no monitor ${id} on this account.`);

export function createMonitorService(deps: MonitorServiceDeps) {
  const store = createMonitorStore(deps.db);
  const schedules = createMonitorSchedules(deps.client);
  const auditLog = createAuditLog(deps.db);
  const reading: ReadingDeps = deps;

  /** The monitor with its next run (Temporal's; null when it cannot be asked just now). */
  async function viewOf(doc: MonitorDoc): Promise<MonitorView> {
    const next = await schedules.nextRunAt(doc._id).catch(() => null);
    return monitorView(doc, next);
  }

  async function own(accountId: string, id: string): Promise<MonitorDoc> {
    const doc = await store.get(accountId, id);
    if (!doc) throw notFound(id);
    return doc;
  }

  const audited = (doc: MonitorDoc) => ({ ...monitorDefinition(doc), paused: doc.state === 'paused' });

  async function create(accountId: string, body: MonitorBody, audit: AuditContext): Promise<MonitorView> {
    const definition = await readDefinition(reading, accountId, body);
    if ((await store.count(accountId)) >= deps.perAccount)
      throw new ServiceError('monitor_limit', `An account may have at most ${deps.perAccount} monitors; delete one first.`, {
        limit: deps.perAccount,
      });
    const doc = newMonitorDoc(accountId, body, definition);
    const id = doc._id;
    doc.auditDrafts = [auditDraft(audit, accountId, 'monitor.created', { type: 'monitor', id }, changesOf({}, audited(doc), AUDITED))];
    await store.insert(doc);
    try {
      await schedules.create(doc);
    } catch (err) {
      // No monitor without its schedule: what was stored goes again (its audit draft with it).
      await store.remove(accountId, id);
      throw err;
    }
    await auditLog.flush('monitor', id);
    return viewOf(doc);
  }

  async function update(accountId: string, id: string, body: Partial<MonitorBody>, audit: AuditContext): Promise<MonitorView> {
    for (;;) {
      const doc = await own(accountId, id);
      const set = await changedFields(reading, doc, body);
      const next = { ...doc, ...set };
      await schedules.update(next);
      const draft = auditDraft(
        audit,
        accountId,
        'monitor.updated',
        { type: 'monitor', id },
        changesOf(audited(doc), audited(next), AUDITED),
      );
      const after = await store.writeIf(id, doc.seq, set, Object.keys(draft.changes).length ? { auditDrafts: draft } : undefined);
      if (!after) continue; // a run was judged meanwhile: change what it left
      if (set.baselineRunId === null && doc.baselineRunId !== null) await store.forgetImages(id);
      await auditLog.flush('monitor', id);
      return viewOf(after);
    }
  }

  async function remove(accountId: string, id: string, audit: AuditContext): Promise<void> {
    const doc = await own(accountId, id);
    // The schedule first: a monitor left without one can still be deleted; runs without a monitor cannot be stopped.
    await schedules.remove(id);
    const draft = auditDraft(audit, accountId, 'monitor.deleted', { type: 'monitor', id }, changesOf(audited(doc), {}, ['name', 'tool']));
    if (!(await auditLog.deleting(draft, () => store.remove(accountId, id)))) throw notFound(id);
  }

  return {
    create,
    update,
    remove,
    get: async (accountId: string, id: string) => viewOf(await own(accountId, id)),

    async list(accountId: string, limit: number, after?: Position) {
      const page = await store.list(accountId, limit, after);
      return { rows: page.rows, more: page.more, views: await Promise.all(page.rows.map(viewOf)) };
    },

    /** One run now, beside the schedule (a paused monitor's too): its request id. */
    async runNow(accountId: string, id: string): Promise<string> {
      return schedules.runNow(await own(accountId, id));
    },

    /** The latest capture becomes the baseline; fired visual changes are forgotten. */
    async acceptBaseline(accountId: string, id: string): Promise<MonitorView> {
      const doc = await own(accountId, id);
      if (!doc.assertions.some((a) => a.op === 'visual_change'))
        throw invalidRequest([{ field: '/assertions', message: 'has no visual_change: the monitor keeps no baseline' }]);
      const latest = await store.acceptLatest(id);
      if (!latest) throw new ServiceError('not_found', `Monitor ${id} has no capture yet: run it first.`);
      for (;;) {
        const current = await own(accountId, id);
        const after = await store.writeIf(id, current.seq, { changedVisuals: [], baselineRunId: latest.runId });
        if (after) return viewOf(after);
      }
    },

    async runs(accountId: string, id: string, limit: number, after: Position | undefined, diffUrl: DiffLinker) {
      await own(accountId, id);
      const page = await store.runs(id, limit, after);
      return { rows: page.rows, more: page.more, views: page.rows.map((r) => runView(r, diffUrl)) };
    },
  };
}

export type MonitorService = ReturnType<typeof createMonitorService>;
