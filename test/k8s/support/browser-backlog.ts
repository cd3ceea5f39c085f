//! The browser pool under a backlog it must grow for (node.test.ts): screenshots sent at once as
//! asynchronous calls, of a page the fixture holds until two pods are Ready, read every two seconds
//! (Temporal's backlog, the Deployment's replicas, its Ready pods) until every call is served and
//! the pool is back at 0.
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { ControlPlane } from '../../../scripts/stack/control-plane.js';
import type { RunningTemporal } from '../../../scripts/stack/services.js';
import { callTool, newAccount, request, type TestAccount } from '../../helpers/api.js';
import type { FileServer } from '../../fixtures/file-server.js';
import { getJson } from './get-json.js';
import { isReady, podsOf } from './pods.js';
import { NAMESPACE } from './real-node.js';

export interface BacklogRun {
  account: TestAccount;
  /** Each call's first answer (202 when accepted). */
  accepted: number[];
  /** `| s | backlog | replicas | Ready pods |`, a row a reading. */
  table: string[];
  peak: number;
  peakReady: number;
  served: boolean;
}

/** The replicas the browser pool's Deployment asks for (what KEDA set). */
export const browserReplicas = async (plane: ControlPlane): Promise<number> =>
  Number((await getJson(plane, '-n', NAMESPACE, 'deployment/worker-browser')).spec.replicas ?? 0);

/** The browser queue's backlog as Temporal counts it (what KEDA's trigger reads). */
export async function browserBacklog(connection: Connection, namespace: string): Promise<number> {
  const { stats } = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: 'browser', kind: 1 },
    taskQueueType: 1,
    reportStats: true,
  });
  return Number(stats?.approximateBacklogCount ?? 0);
}

export async function browserPoolUnderBacklog(
  plane: ControlPlane,
  temporal: RunningTemporal,
  files: FileServer,
  options: { calls: number; cost: number },
): Promise<BacklogRun> {
  const connection = await Connection.connect({ address: temporal.address });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Held until two pods are Ready (40 s at most, within the tool's 60 s deadline), so the pods KEDA
  // asks for meet work still waiting.
  files.put('/slow.html', {
    body: Buffer.from('<h1>held until the pool has grown</h1>'),
    contentType: 'text/html',
    until: Promise.race([released, sleep(40_000)]),
  });
  const account = await newAccount(options.calls * options.cost);
  try {
    const posted = await Promise.all(
      Array.from({ length: options.calls }, (_, i) =>
        callTool(
          account.apiKey,
          'website-screenshot',
          { url: `${files.origin}/slow.html?card=${i}`, width: 400, height: 200 },
          { prefer: 'respond-async' },
        ),
      ),
    );
    const calls: string[] = posted.map((res) => res.body.requestId);
    const table = ['| s | backlog | replicas | Ready pods |', '|---|---|---|---|'];
    const began = Date.now();
    let [peak, peakReady, served] = [0, 0, false];
    while (Date.now() - began < 900_000) {
      const [queued, replicas, pods] = await Promise.all([
        browserBacklog(connection, temporal.namespace),
        browserReplicas(plane),
        podsOf(plane, 'worker-browser'),
      ]);
      const ready = pods.filter(isReady).length;
      if (ready >= 2) release();
      peakReady = Math.max(peakReady, ready);
      peak = Math.max(peak, replicas);
      table.push(`| ${((Date.now() - began) / 1000).toFixed(0)} | ${queued} | ${replicas} | ${ready} |`);
      if (!served) {
        const states = await Promise.all(
          calls.map(async (id) => (await request('GET', `/api/v1/calls/${id}`, { token: account.apiKey })).body.status),
        );
        served = states.every((s) => s === 'succeeded');
      }
      if (served && replicas === 0 && pods.length === 0 && peak > 0) break;
      await sleep(2000);
    }
    return { account, accepted: posted.map((res) => res.status), table, peak, peakReady, served };
  } finally {
    release();
    await connection.close();
  }
}
