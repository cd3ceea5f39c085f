//! Running a command and waiting for several installs, for the bootstrap scripts (bootstrap.mjs,
//! bootstrap-python.mjs, bootstrap-cluster.mjs, jaeger-build.mjs, pinned-node.mjs). Node built-ins
//! only: it runs before `node_modules` exists.
import { spawn } from 'node:child_process';

/** Runs a command; resolves with its output, rejects with the output when it fails. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve(output);
      const err = new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output.trim().split('\n').slice(-30).join('\n')}`);
      err.output = output;
      reject(err);
    });
  });
}

export const succeeds = (command, args) =>
  run(command, args).then(
    () => true,
    () => false,
  );

/** Runs every promise to its end (no half-done install left behind), then throws the first failure. */
export async function allToTheEnd(promises) {
  const failure = (await Promise.allSettled(promises)).find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
}
