//! stripe-mock for the test stacks: Stripe's API answered from fixtures on a free port, and the
//! variables that point the service at it with test-mode keys, so the stack has payments on.
//! It keeps no state and sends no events: the tests sign and post Stripe's events themselves.
import { randomBytes } from 'node:crypto';
import { assertPortFree, freePort, waitUntil } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

/** stripe-mock takes any key of Stripe's test-mode shape, `sk_test_<word>`. */
const MOCK_SECRET_KEY = 'sk_test_stripemock';

export interface RunningStripeMock {
  process: ManagedProcess;
  /** `http://127.0.0.1:<port>`: STRIPE_API_URL. */
  url: string;
  /** STRIPE_API_URL, STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET for the API and workers. */
  env: NodeJS.ProcessEnv;
}

/** Starts the built binary (bootstrap's `stripeMock`) on a free port, plain HTTP only; resolves once it answers. */
export async function startStripeMock(
  supervisor: Supervisor,
  options: { binary: string; port?: number; timeoutMs?: number },
): Promise<RunningStripeMock> {
  const port = options.port ?? (await freePort());
  await assertPortFree(port, 'stripe-mock');
  const proc = supervisor.start({
    name: 'stripe-mock',
    command: options.binary,
    // Its HTTPS listener, unused, on a port of the system's choosing: by default it takes 12112,
    // and a second stack on the machine then fails to start.
    args: ['-http-addr', `127.0.0.1:${port}`, '-https-addr', '127.0.0.1:'],
    env: process.env,
    layer: 0,
    stopTimeoutMs: 5_000,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => {
      const res = await fetch(`${url}/v1/customers?limit=1`, {
        headers: { Authorization: `Bearer ${MOCK_SECRET_KEY}` },
        signal: AbortSignal.timeout(5_000),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`stripe-mock answered ${res.status}`);
      return true;
    },
    { what: 'stripe-mock', timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] },
  );
  const env = {
    STRIPE_API_URL: url,
    STRIPE_SECRET_KEY: MOCK_SECRET_KEY,
    // A fresh signing secret per stack: the tests read it from their environment to sign events.
    STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64url')}`,
  };
  return { process: proc, url, env };
}
