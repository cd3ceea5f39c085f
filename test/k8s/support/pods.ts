//! Reading a pod from inside, as its own user would (`kubectl exec`): its processes and their /proc
//! status, and whether it can open a TCP connection to an address (what a NetworkPolicy decides).
import type { ControlPlane } from '../../../scripts/stack/control-plane.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { UncheckedJson } from '../../helpers/api.js';
import { getJson } from './get-json.js';
import { NAMESPACE } from './real-node.js';

const exec = (plane: ControlPlane, pod: string, command: string[], namespace = NAMESPACE) =>
  plane.kubectl(['-n', namespace, 'exec', pod, '--', ...command]);

/** /proc/<pid>/status of a process in the pod's container, as fields. */
export async function podStatus(
  plane: ControlPlane,
  pod: string,
  pid: number | 'self',
  namespace = NAMESPACE,
): Promise<Record<string, string>> {
  const text = await exec(plane, pod, ['cat', `/proc/${pid}/status`], namespace);
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/** Every process of the pod's container: pid and command line. */
export async function podProcesses(plane: ControlPlane, pod: string): Promise<Array<{ pid: number; args: string }>> {
  const script = 'for d in /proc/[0-9]*; do printf "%s\\t" "$(basename "$d")"; tr "\\0" " " < "$d/cmdline" 2>/dev/null; echo; done';
  const output = await exec(plane, pod, ['sh', '-c', script]);
  return output
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([pid, args]) => pid && args?.trim())
    .map(([pid, args]) => ({ pid: Number(pid), args: args!.trim() }));
}

/**
 * Whether a TCP connection from the pod to `host:port` opens within `timeoutMs` ('open'), is refused
 * by the peer ('refused': it was reached), or gets no answer ('silent': dropped on the way).
 */
export async function reachable(
  plane: ControlPlane,
  pod: string,
  host: string,
  port: number,
  { namespace = NAMESPACE, timeoutMs = 3000 } = {},
): Promise<'open' | 'refused' | 'silent'> {
  const script = `const s=require('net').connect(${port},${JSON.stringify(host)});s.setTimeout(${timeoutMs});s.on('connect',()=>{console.log('open');s.destroy()});s.on('timeout',()=>{console.log('silent');s.destroy()});s.on('error',e=>console.log(e.code==='ECONNREFUSED'?'refused':'silent'))`;
  const out = (await exec(plane, pod, ['node', '-e', script], namespace)).trim();
  return out as 'open' | 'refused' | 'silent';
}

/** The pods of a role (`app.kubernetes.io/component`) not on their way out. */
export async function podsOf(plane: ControlPlane, role: string): Promise<UncheckedJson[]> {
  const list = await getJson(plane, '-n', NAMESPACE, 'pods', '-l', `app.kubernetes.io/component=${role}`);
  return list.items.filter((p: UncheckedJson) => !p.metadata.deletionTimestamp);
}

/** Every pod's last 2,000 lines into `dir` (`pod-<name>.log`), while the cluster is still up to ask. */
export async function savePodLogs(plane: ControlPlane, dir: string): Promise<void> {
  const pods = await getJson(plane, '-n', NAMESPACE, 'pods').catch(() => ({ items: [] }));
  for (const pod of pods.items as UncheckedJson[]) {
    const logs = plane.kubectl(['-n', NAMESPACE, 'logs', pod.metadata.name, '--all-containers', '--tail=2000']);
    writeFileSync(path.join(dir, `pod-${pod.metadata.name}.log`), await logs.catch((e: Error) => e.message));
  }
}

/** Whether a pod's Ready condition is true. */
export const isReady = (pod: UncheckedJson): boolean =>
  pod.status.conditions?.some((c: UncheckedJson) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Holds a pool at `replicas` (KEDA's pause annotation on its ScaledObject), or gives it back to KEDA. */
export async function pinPool(plane: ControlPlane, pool: string, replicas: number | undefined): Promise<void> {
  const annotation = replicas === undefined ? 'autoscaling.keda.sh/paused-replicas-' : `autoscaling.keda.sh/paused-replicas=${replicas}`;
  await plane.kubectl(['-n', NAMESPACE, 'annotate', '--overwrite', `scaledobject/${pool}`, annotation]);
}

/**
 * A pod of `image` doing nothing but answer on 8080, in `namespace`, without the service's labels
 * (what a NetworkPolicy check connects from, or to). Resolves with its address once Ready.
 */
export async function probePod(plane: ControlPlane, image: string, namespace: string, name: string): Promise<string> {
  await plane.kubectl(['create', 'namespace', namespace]).catch(() => '');
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { role: 'probe' } },
    spec: {
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'probe',
          image,
          imagePullPolicy: 'Never',
          command: ['node', '-e', "require('http').createServer((q, s) => s.end('probe')).listen(8080)"],
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        },
      ],
    },
  };
  await plane.kubectl(['apply', '-f', '-'], JSON.stringify(pod));
  await plane.kubectl(['-n', namespace, 'wait', '--for=condition=Ready', `pod/${name}`, '--timeout=180s']);
  return (await getJson(plane, '-n', namespace, `pod/${name}`)).status.podIP as string;
}
