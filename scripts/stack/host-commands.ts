//! Commands a real node runs on the host (scripts/stack/k8s-host.ts, k8s-node.ts): their output, and
//! a step whose failure means only that there was nothing to do (a link already gone, a chain absent).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const run = async (command: string, args: string[]) => (await exec(command, args, { maxBuffer: 64 * 2 ** 20 })).stdout;

export const quietly = (p: Promise<unknown>) => p.catch(() => undefined);
