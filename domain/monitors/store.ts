//! Monitors and their runs in the database: an account's monitors newest first, a monitor's runs
//! newest first (kept 90 days), the images of a visual monitor, and the guarded write every change
//! of a monitor's state makes (`seq`), so two judgements, or a judgement and a pause, never
//! interleave.
import { Binary, type Db } from 'mongodb';
import { collections, insertIfAbsent, newestFirst, type PageAfter } from '../../lib/mongo.js';
import type { MonitorDoc, MonitorImagesDoc, MonitorRunDoc } from './documents.js';

/** Runs are kept this long (the sweeper deletes older ones, and their diff images). */
export const RUN_RETENTION_MS = 90 * 24 * 3600 * 1000;

/** The blob store's area of diff images (lib/blob-store.ts), swept after RUN_RETENTION_MS. */
export const MONITOR_DIFFS_AREA = 'monitor-diffs';

/** A position in a newest-first list: the last row's time and id. */
export type Position = PageAfter;

/** The update of a guarded write: `set`, the time of the change, `seq` bumped, and what `push` appends. */
const guardedUpdate = (set: Partial<MonitorDoc>, push?: Record<string, unknown>) => ({
  $set: { ...set, updatedAt: new Date() },
  $inc: { seq: 1 },
  ...(push ? { $push: push } : {}),
});

export function createMonitorStore(db: Db) {
  const { monitors, monitorRuns, monitorImages } = collections(db);

  return {
    insert: (doc: MonitorDoc) => monitors.insertOne(doc),
    count: (accountId: string) => monitors.countDocuments({ accountId }),
    get: (accountId: string, id: string) => monitors.findOne({ _id: id, accountId }),
    byId: (id: string) => monitors.findOne({ _id: id }),

    list: (accountId: string, limit: number, after?: Position): Promise<{ rows: MonitorDoc[]; more: boolean }> =>
      newestFirst(monitors, { accountId }, { limit, after }),

    /**
     * Applies `set` to the monitor if its `seq` is still `seq` (and bumps it): the write of a
     * decision made on what was read. Answers the monitor after it, or null when another write came
     * first (read again and decide again) or the monitor is gone.
     */
    async writeIf(id: string, seq: number, set: Partial<MonitorDoc>, push?: Record<string, unknown>): Promise<MonitorDoc | null> {
      return monitors.findOneAndUpdate({ _id: id, seq }, guardedUpdate(set, push), { returnDocument: 'after' });
    },

    /**
     * writeIf answering only whether it applied: a writer that knows what it wrote (the judge)
     * needs no document back, and the database then makes one write instead of a read and a write.
     */
    async setIf(id: string, seq: number, set: Partial<MonitorDoc>): Promise<boolean> {
      return (await monitors.updateOne({ _id: id, seq }, guardedUpdate(set))).matchedCount === 1;
    },

    /**
     * Takes the monitor for the scheduled run `runId` until `until`, unless another run holds it
     * (not yet past its `until`): answers the monitor as it now is, or null when it is held, or
     * gone. One guarded update, without `seq`: it changes nothing a judgement decides on. The same
     * run takes it again (its step retried).
     */
    async lease(id: string, runId: string, now: Date, until: Date): Promise<MonitorDoc | null> {
      return monitors.findOneAndUpdate(
        { _id: id, $or: [{ running: null }, { 'running.until': { $lte: now } }, { 'running.runId': runId }] },
        { $set: { running: { runId, until } } },
        { returnDocument: 'after' },
      );
    },

    /** Deletes the monitor, its runs and its images; whether it was there. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const { deletedCount } = await monitors.deleteOne({ _id: id, accountId });
      await Promise.all([monitorRuns.deleteMany({ monitorId: id }), monitorImages.deleteOne({ _id: id })]);
      return deletedCount === 1;
    },

    /** A run recorded once: a retried judgement finds it recorded (its `_id` taken) and leaves it. */
    async recordRun(run: MonitorRunDoc): Promise<void> {
      await insertIfAbsent(monitorRuns, run);
    },
    runById: (id: string) => monitorRuns.findOne({ _id: id }),

    runs: (monitorId: string, limit: number, after?: Position): Promise<{ rows: MonitorRunDoc[]; more: boolean }> =>
      newestFirst(monitorRuns, { monitorId }, { limit, after }, { field: 'at' }),

    images: (monitorId: string) => monitorImages.findOne({ _id: monitorId }),

    /** Keeps a capture as the latest, and as the baseline too when there is none yet. */
    async keepCapture(
      monitor: Pick<MonitorDoc, '_id' | 'accountId'>,
      png: Buffer,
      runId: string,
      at: Date,
      asBaseline: boolean,
    ): Promise<void> {
      const image = { png: new Binary(png), runId, at };
      await monitorImages.updateOne(
        { _id: monitor._id },
        { $set: { accountId: monitor.accountId, latest: image, ...(asBaseline ? { baseline: image } : {}) } },
        { upsert: true },
      );
    },

    /** Forgets the captures (the monitor now shows another page): its next capture is the baseline. */
    forgetImages: async (monitorId: string) => {
      await monitorImages.deleteOne({ _id: monitorId });
    },

    /** The latest capture becomes the baseline; null when there is none. */
    async acceptLatest(monitorId: string): Promise<MonitorImagesDoc['latest']> {
      const doc = await monitorImages.findOne({ _id: monitorId });
      if (!doc?.latest) return null;
      await monitorImages.updateOne({ _id: monitorId }, { $set: { baseline: doc.latest } });
      return doc.latest;
    },

    /** Deletes the runs past their 90 days; answers how many. */
    async sweepRuns(now: number): Promise<number> {
      return (await monitorRuns.deleteMany({ at: { $lt: new Date(now - RUN_RETENTION_MS) } })).deletedCount;
    },
  };
}

export type MonitorStore = ReturnType<typeof createMonitorStore>;
