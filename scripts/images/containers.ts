//! The role images run as production runs them (docs/OPERATING.md#images, docker-compose.yml): as
//! user 1000 with a read-only root file system, writable only where the Kubernetes manifests mount
//! something (`/tmp`, the browser's `/dev/shm`, the blob volume), no capabilities, no privilege
//! escalation, an init that reaps what Chromium and LibreOffice leave, and a seccomp profile: the
//! engine's default, or for the roles that sandbox what they run (Chromium's renderers, LibreOffice
//! offline) deploy/seccomp/sandboxes.json. On the host's network (`npm run test:images`' engine has
//! no bridge), so each container takes its ports from its environment.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { DOCKER } from './docker-engine.mjs';

export type Role = 'api' | 'worker-core' | 'worker-cpu' | 'worker-network' | 'worker-browser';

/** The roles whose sandboxes need namespaces the engine's default seccomp profile refuses. */
export const SANDBOXED_ROLES: ReadonlySet<Role> = new Set(['worker-cpu', 'worker-browser']);
export const SECCOMP_PROFILE = path.resolve(import.meta.dirname, '../../deploy/seccomp/sandboxes.json');
/** `/tmp`'s size, as the manifests' emptyDir limit; the browser's shared memory as its `/dev/shm`. */
const TMP_SIZE = '1g';
const SHM_SIZE = '512m';
/** How long `docker stop` waits before SIGKILL: the pools' grace periods (docker-compose.yml's stop_grace_period). */
export const STOP_GRACE_S = 80;

const run = promisify(execFile);

export interface RoleContainerOptions {
  role: Role;
  image: string;
  /** The container's name (unique on the engine). */
  name: string;
  /** Its whole environment (secrets included: passed by name, never on the command line). */
  env: Record<string, string>;
  /** The host directory mounted as the blob volume (`/data/blobs`, BLOB_STORE_URL=file:///data/blobs). */
  blobDir: string;
  /** Host files mounted read-only at the same path (a CA bundle the environment names). */
  readOnlyFiles?: string[];
}

/** `docker run`'s arguments for a role, as production runs it. */
export function productionRunArgs(options: RoleContainerOptions): string[] {
  return [
    'run',
    '--detach',
    '--name',
    options.name,
    '--network',
    'host',
    '--init',
    // A process that cannot reach the database or Temporal at start exits; the engine starts it again, as compose and Kubernetes do.
    '--restart',
    'on-failure:10',
    '--user',
    '1000:1000',
    '--read-only',
    '--tmpfs',
    `/tmp:rw,nosuid,nodev,size=${TMP_SIZE}`,
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    ...(SANDBOXED_ROLES.has(options.role) ? ['--security-opt', `seccomp=${SECCOMP_PROFILE}`] : []),
    ...(options.role === 'worker-browser' ? ['--shm-size', SHM_SIZE] : []),
    '--volume',
    `${options.blobDir}:/data/blobs`,
    ...(options.readOnlyFiles ?? []).flatMap((file) => ['--volume', `${file}:${file}:ro`]),
    ...Object.keys(options.env).flatMap((name) => ['--env', name]),
    options.image,
  ];
}

export async function dockerCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stdout } = await run(DOCKER, args, { env, maxBuffer: 64 * 2 ** 20 });
  return stdout;
}

export interface RoleContainer {
  role: Role;
  name: string;
  /** Where it answers its health: the API's `/readyz` on PORT, a worker's `/healthz` on METRICS_PORT. */
  healthUrl: string;
  /** Its operator port (`/metrics`, a worker's `/healthz`). */
  operatorUrl: string;
  /** From `docker run` to its health answering 200. */
  readyMs: number;
  /** How often the engine started it again on the way (a start that could not reach its database or Temporal). */
  restarts: number;
}

/** Whether the container runs (or is being started again after a failed start), its exit code and restarts. */
export async function containerState(name: string): Promise<{ running: boolean; restarting: boolean; exitCode: number; restarts: number }> {
  const format = '{{.State.Running}} {{.State.Restarting}} {{.State.ExitCode}} {{.RestartCount}}';
  const [running, restarting, exitCode, restarts] = (await dockerCli(['inspect', '--format', format, name])).trim().split(' ');
  return { running: running === 'true', restarting: restarting === 'true', exitCode: Number(exitCode), restarts: Number(restarts) };
}

export async function containerLogs(name: string, lines = 60): Promise<string> {
  const { stdout, stderr } = await run(DOCKER, ['logs', '--tail', String(lines), name]).catch((err) => err);
  return `${stdout ?? ''}${stderr ?? ''}`;
}

/** Polls `url` until it answers 200; fails at once if the container exits, with its last lines. */
export async function waitHealthy(name: string, url: string, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const status = await fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    const { running, restarting, exitCode } = await containerState(name);
    if (!running && !restarting) throw new Error(`${name} exited (${exitCode}) before ${url} answered 200:\n${await containerLogs(name)}`);
    if (Date.now() > deadline)
      throw new Error(`${name}: ${url} did not answer 200 within ${timeoutMs / 1000} s (last ${status}):\n${await containerLogs(name)}`);
    await sleep(250);
  }
}

/** Starts a role's container and waits until it is ready (the workers: polling, their browser or converter warm). */
export async function startRoleContainer(options: RoleContainerOptions, timeoutMs = 180_000): Promise<RoleContainer> {
  const { role, name, env } = options;
  const operatorUrl = `http://127.0.0.1:${env.METRICS_PORT}`;
  const healthUrl = role === 'api' ? `http://127.0.0.1:${env.PORT}/readyz` : `${operatorUrl}/healthz`;
  const started = Date.now();
  await dockerCli(productionRunArgs(options), { ...process.env, ...env });
  await waitHealthy(name, healthUrl, timeoutMs);
  const readyMs = Date.now() - started;
  return { role, name, healthUrl, operatorUrl, readyMs, restarts: (await containerState(name)).restarts };
}

/** `docker stop` (SIGTERM, then SIGKILL after the grace period); resolves with how long it took. */
export async function stopContainer(name: string, graceS = STOP_GRACE_S): Promise<number> {
  const started = Date.now();
  await dockerCli(['stop', '--time', String(graceS), name]);
  return Date.now() - started;
}

export async function removeContainer(name: string): Promise<void> {
  await dockerCli(['rm', '--force', '--volumes', name]).catch(() => undefined);
}

/** Runs a command in the container as its own user; resolves with its output and exit code. */
export async function execIn(name: string, command: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(DOCKER, ['exec', name, ...command], { maxBuffer: 16 * 2 ** 20 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
