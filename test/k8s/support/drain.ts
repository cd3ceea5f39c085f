//! A node drained while calls flow (node.test.ts): what each call answered, what `kubectl drain`
//! printed (its evictions, and the ones a disruption budget made wait), and the fewest Ready pods
//! each watched Deployment had while it ran. The drain is the operator's own command, as
//! docs/OPERATING.md gives it.
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { ControlPlane } from '../../../scripts/stack/control-plane.js';
import { NAMESPACE } from './real-node.js';
import { callsDuring } from './calls-during.js';
import { isReady, podsOf } from './pods.js';

const exec = promisify(execFile);

export interface DrainWitness {
  /** Each call's status, or the error a call met on its way (a reset connection). */
  answers: Array<number | string>;
  /** `kubectl drain`'s output, both streams. */
  output: string;
  /** Per Deployment, the fewest pods Ready and not on their way out at any reading. */
  fewestReady: Record<string, number>;
}

/** Moves the Deployments' pods onto `to`: every other node cordoned while they restart. */
export async function moveOnto(plane: ControlPlane, to: string, deployments: string[]): Promise<void> {
  const nodes = (await plane.kubectl(['get', 'nodes', '-o', 'name'])).split('\n').filter((n) => n && n !== `node/${to}`);
  for (const node of nodes) await plane.kubectl(['cordon', node]);
  try {
    await plane.kubectl(['-n', NAMESPACE, 'rollout', 'restart', ...deployments.map((d) => `deployment/${d}`)]);
    for (const d of deployments) await plane.kubectl(['-n', NAMESPACE, 'rollout', 'status', `deployment/${d}`, '--timeout=600s']);
  } finally {
    for (const node of nodes) await plane.kubectl(['uncordon', node]);
  }
}

export async function drainWhileCalling(
  plane: ControlPlane,
  options: { kubectl: string; node: string; deployments: string[]; call: () => Promise<number | string> },
): Promise<DrainWitness> {
  const fewestReady: Record<string, number> = Object.fromEntries(options.deployments.map((d) => [d, Number.POSITIVE_INFINITY]));
  let output = '';
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      for (const deployment of options.deployments) {
        const ready = (await podsOf(plane, deployment)).filter(isReady).length;
        fewestReady[deployment] = Math.min(fewestReady[deployment]!, ready);
      }
      await sleep(500);
    }
  })();
  try {
    const answers = await callsDuring(options.call, async () => {
      const script = '"$0" "$@" 2>&1';
      const args = [
        '--kubeconfig',
        plane.kubeconfig,
        'drain',
        options.node,
        '--ignore-daemonsets',
        '--delete-emptydir-data',
        '--timeout=600s',
      ];
      output = (await exec('sh', ['-c', script, options.kubectl, ...args], { maxBuffer: 16 * 2 ** 20 })).stdout;
      for (const deployment of options.deployments)
        await plane.kubectl(['-n', NAMESPACE, 'rollout', 'status', `deployment/${deployment}`, '--timeout=600s']);
    });
    return { answers, output, fewestReady };
  } finally {
    watching = false;
    await watcher;
  }
}
