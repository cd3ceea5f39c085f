//! The Docker Engine `npm run test:images` builds and runs the images on: Debian's `docker.io`
//! (with its containerd and runc), installed with apt when missing and started by hand when none
//! answers (no systemd here), then stopped again by whoever started it. Node built-ins only.
//!
//! An engine started here has no bridge (`--bridge=none`, no iptables rules): every container runs
//! on the host's network, and builds too (`docker build --network host`). A bridge or veth coming
//! up on the host makes a Chromium running on the host abort its page loads (ERR_NETWORK_CHANGED),
//! so an engine that creates none leaves the machine's other work alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { aptInstall, missingAptPackages } from '../bootstrap.mjs';
import { run } from '../command.mjs';

/** Debian's engine, the init `docker run --init` starts (tini, as docker-init), and what the base image is made with. */
export const ENGINE_PACKAGES = ['docker.io', 'tini', 'debootstrap'];

/** docker.io's own client, which speaks its engine's API version (another client may be first on PATH). */
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

/** Runs a docker command; resolves with its output. */
export const docker = (args, options = {}) =>
  run(DOCKER, args, { ...options, env: { ...process.env, DOCKER_BUILDKIT: '0', ...options.env } });

const answers = () =>
  docker(['info', '--format', '{{.ServerVersion}}']).then(
    (v) => v.trim(),
    () => undefined,
  );

/**
 * An engine that answers: the running one, or one started here (its log in `logDir`). Resolves with
 * its version and `stop()`, which stops only an engine this call started.
 * @param {{ logDir: string, log: (line: string) => void }} options
 */
export async function ensureDockerEngine({ logDir, log }) {
  if (process.getuid?.() !== 0) throw new Error('the Docker Engine runs as root: run npm run test:images as root');
  const missing = await missingAptPackages(ENGINE_PACKAGES);
  if (missing.length) await aptInstall(missing, log);
  const running = await answers();
  if (running) return { version: running, started: false, stop: async () => {} };

  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'dockerd.log');
  const out = openSync(logFile, 'a');
  const daemon = spawn('dockerd', ['--bridge=none', '--iptables=false', '--ip6tables=false'], {
    stdio: ['ignore', out, out],
    detached: true,
  });
  const exited = new Promise((resolve) => daemon.on('exit', resolve));
  let version;
  for (const deadline = Date.now() + 60_000; !version; ) {
    if (daemon.exitCode !== null || Date.now() > deadline) throw new Error(`dockerd did not answer within 60 s (its log: ${logFile})`);
    await sleep(250);
    version = await answers();
  }
  log(`started Docker Engine ${version} (pid ${daemon.pid}, no bridge; log ${path.relative(process.cwd(), logFile)})`);
  return {
    version,
    started: true,
    async stop() {
      if (daemon.exitCode !== null) return;
      daemon.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
    },
  };
}
