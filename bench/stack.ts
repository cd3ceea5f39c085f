//! The stack a benchmark measures: the one named by API_URL and ADMIN_TOKEN when both are set
//! (its TARGET_ALLOWLIST must let 127.0.0.2 through and its rate limit allow the load), else a
//! throwaway stack (Temporal, SecantusDB, API, workers) on free ports under
//! test-output/bench-<time>/, stopped at the end. Benchmarks print numbers, never assert.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchStack {
  apiUrl: string;
  adminToken: string;
  /** Opens an account with `credits` and returns its API key. */
  newApiKey(credits: number): Promise<string>;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function startThrowawayStack(): Promise<{ apiUrl: string; adminToken: string; stop(): Promise<void> }> {
  // bootstrap.mjs is plain JavaScript without types: imported by URL, typed here.
  const { bootstrap } = (await import(new URL('../scripts/bootstrap.mjs', import.meta.url).href)) as {
    bootstrap: (o: { root: string; log: (line: string) => void }) => Promise<{ temporal: string; secantusd: string }>;
  };
  const stack = await import('../scripts/stack/index.js');
  const tools = await bootstrap({ root, log: (line) => console.log(`bootstrap: ${line}`) });
  const runDir = path.join(root, 'test-output', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const supervisor = new stack.Supervisor({ logDir: path.join(runDir, 'logs') });
  supervisor.stopOnSignals();
  const started = performance.now();
  const [temporal, database] = await Promise.all([
    stack.startTemporal(supervisor, { binary: tools.temporal, port: await stack.freePort() }),
    stack.startDatabase(supervisor, { binary: tools.secantusd, port: await stack.freePort(), dir: path.join(runDir, 'db') }),
  ]);
  const adminToken = randomBytes(24).toString('base64url');
  const env = {
    ...process.env,
    MONGODB_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: adminToken,
    TARGET_ALLOWLIST: '127.0.0.2/32',
    RATE_LIMIT_PER_SECOND: '10000',
    LOG_LEVEL: 'warn',
  };
  const apps = await stack.startApps(supervisor, { root, env, apiPort: await stack.freePort() });
  console.log(`bench: own stack ready in ${((performance.now() - started) / 1000).toFixed(1)} s (logs in ${path.relative(process.cwd(), runDir)}/logs)`);
  return { apiUrl: apps.apiUrl, adminToken, stop: () => supervisor.stopAll() };
}

export async function withBenchStack<T>(fn: (stack: BenchStack) => Promise<T>): Promise<T> {
  const given = process.env.API_URL && process.env.ADMIN_TOKEN;
  const platform = given
    ? { apiUrl: process.env.API_URL!, adminToken: process.env.ADMIN_TOKEN!, stop: async () => {} }
    : await startThrowawayStack();
  if (given) console.log(`bench: the stack at ${platform.apiUrl}`);
  // Helpers that read the test environment (test/helpers/api.ts) then work against this stack.
  process.env.API_URL = platform.apiUrl;
  process.env.ADMIN_TOKEN = platform.adminToken;
  try {
    return await fn({
      apiUrl: platform.apiUrl,
      adminToken: platform.adminToken,
      async newApiKey(credits) {
        const res = await fetch(`${platform.apiUrl}/api/v1/admin/accounts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'bench', credits }),
        });
        if (res.status !== 201) throw new Error(`could not open a bench account: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { apiKey: { key: string } }).apiKey.key;
      },
    });
  } finally {
    await platform.stop();
  }
}
