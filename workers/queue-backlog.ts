//! The backlog of the task queues a worker process polls, as Temporal counts it, on the process's
//! `/metrics`: `task_queue_backlog{task_queue, type}`. It is the signal KEDA's `temporal` trigger
//! scales a pool on (DescribeTaskQueue's approximate backlog, workflow and activity tasks), so an
//! operator without KEDA sees what it would see (docs/SCALING.md#kubernetes). Read at each scrape.
import type { NativeConnection } from '@temporalio/worker';
import { Gauge, Registry } from 'prom-client';
import { HEALTH_CHECK_MS } from '../lib/operator-port.js';

/** The task types a pool's calls wait as: workflow tasks (every call), activity tasks (queued tools). */
const TASK_TYPES = [
  { type: 'workflow', value: 1 },
  { type: 'activity', value: 2 },
] as const;

export interface QueueBacklogSource {
  /** The process's connection to Temporal, once made. */
  connection: () => NativeConnection | undefined;
  namespace: string;
  /** The queues this process polls; empty until its workers start. */
  taskQueues: () => string[];
}

/** Temporal's approximate backlog of one queue's tasks of one type. */
async function backlogOf(connection: NativeConnection, namespace: string, name: string, taskQueueType: number): Promise<number> {
  const { stats } = await connection.withDeadline(Date.now() + HEALTH_CHECK_MS, () =>
    connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name, kind: 1 /* NORMAL */ },
      taskQueueType,
      reportStats: true,
    }),
  );
  return Number(stats?.approximateBacklogCount ?? 0);
}

/** A registry whose one gauge asks Temporal for each queue's backlog when scraped. */
export function queueBacklogRegistry(source: QueueBacklogSource): Registry {
  const registry = new Registry();
  new Gauge({
    name: 'task_queue_backlog',
    help: "Tasks waiting in a task queue this process polls (Temporal's approximate backlog count), by queue and task type",
    labelNames: ['task_queue', 'type'],
    registers: [registry],
    async collect() {
      this.reset();
      const connection = source.connection();
      if (!connection) return;
      const readings = source.taskQueues().flatMap((queue) => TASK_TYPES.map((t) => ({ queue, ...t })));
      const counts = await Promise.all(readings.map((r) => backlogOf(connection, source.namespace, r.queue, r.value)));
      readings.forEach((r, i) => this.set({ task_queue: r.queue, type: r.type }, counts[i]!));
    },
  });
  return registry;
}
