//! The `openssl` command, for the certificates Node can read but not issue (the load balancer's
//! own, local-tls.ts; the tests' authority and leaves, test/fixtures/tls-certs.ts).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A new EC P-256 key, unencrypted: the arguments `req` takes for it. */
export const EC_P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Runs `openssl args` in `cwd`; a failure says which command and what openssl printed. */
export async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await exec('openssl', args, { cwd });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args[0]} failed: ${e.stderr?.trim() || e.message}`);
  }
}
