//! Reading a running container from inside, as its own user would (`docker exec`): its processes'
//! command lines and /proc status, and a worker's metrics from its operator port.
import { execIn } from '../../../scripts/images/containers.js';

/** Every process of the container: pid and command line (arguments joined by spaces). */
export async function processesOf(container: string): Promise<Array<{ pid: number; args: string }>> {
  const script = 'for d in /proc/[0-9]*; do printf "%s\\t" "$(basename "$d")"; tr "\\0" " " < "$d/cmdline" 2>/dev/null; echo; done';
  const { output } = await execIn(container, ['sh', '-c', script]);
  return output
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([pid, args]) => pid && args?.trim())
    .map(([pid, args]) => ({ pid: Number(pid), args: args!.trim() }));
}

/** A process's /proc/<pid>/status as fields (`Uid`, `NoNewPrivs`, `Seccomp`, `CapEff`, `NSpid` ...). */
export async function processStatus(container: string, pid: number): Promise<Record<string, string>> {
  const { code, output } = await execIn(container, ['cat', `/proc/${pid}/status`]);
  if (code !== 0) throw new Error(`${container}: /proc/${pid}/status: ${output}`);
  return Object.fromEntries(
    output
      .split('\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/** The status of the service's own process (`node dist/...`; pid 1 is the init that reaps for it). */
export async function statusOfApp(container: string): Promise<Record<string, string>> {
  const app = (await processesOf(container)).find((p) => /^node dist\//.test(p.args));
  if (!app) throw new Error(`${container}: no node dist/... process`);
  return processStatus(container, app.pid);
}

/** Chromium's processes whose command line holds `match` (its renderers by default). */
export async function renderersOf(container: string, match = '--type=renderer'): Promise<Array<{ pid: number; args: string }>> {
  return (await processesOf(container)).filter((p) => p.args.includes('chromium') && p.args.includes(match));
}

/** The pids of LibreOffice's soffice processes. */
export async function sofficesOf(container: string): Promise<number[]> {
  return (await processesOf(container)).filter((p) => /soffice\.bin/.test(p.args)).map((p) => p.pid);
}

/** The sum of a metric's samples on a Prometheus page (those whose labels contain `labels`, when given). */
export async function metricValue(operatorUrl: string, name: string, labels?: string): Promise<number> {
  const text = await (await fetch(`${operatorUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
