//! The stack a proof run (`npm run chaos`, `load`, `fuzz`, `soak`, and bench:restart) works against:
//! the one `npm test` describes in the environment, else a throwaway one with fixtures and the
//! control endpoint, started like `npm test` starts its own (or, asked for, like `npm run
//! test:cluster` starts the production-shaped one).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { temporalSettings, type TemporalSettings } from '../../../lib/config-temporal.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A stack with fixtures and the control endpoint, as `npm test` runs one (chaos, load, fuzz). */
export interface TestLikeStack {
  apiUrl: string;
  adminToken: string;
  /** STACK_CONTROL_URL: POST `kill/workers`, `kill/temporal`, `kill/database`, `processes` ... */
  controlUrl: string;
  mongodbUrl: string;
  temporal: TemporalSettings;
  /** Origin of the fixture page server (127.0.0.2, allowlisted). */
  pagesUrl: string;
  /** Where to leave reports (the run's directory). */
  outputDir: string;
  /** The production-shaped stack (scripts/stack/cluster.ts): its processes and faults are named otherwise. */
  cluster: boolean;
  /** STRIPE_WEBHOOK_SECRET when the stack has payments on (stripe-mock): Stripe's events are signed with it. */
  stripeWebhookSecret?: string;
}

/**
 * Runs `fn` against the stack `npm test` describes in the environment (API_URL, ADMIN_TOKEN,
 * STACK_CONTROL_URL, MONGODB_URL, TEMPORAL_ADDRESS, FIXTURES_JSON all set), else against a
 * throwaway one started like `npm test` starts its own (scripts/stack/test-stack.ts) under
 * test-output/<label>-<time>/, stopped at the end. `env` is added to a throwaway stack's apps. With
 * `cluster`, the throwaway stack is the production-shaped one `npm run test:cluster` runs (Temporal
 * on PostgreSQL, two API replicas behind the load balancer, a process per pool).
 */
export async function withTestStack<T>(
  label: string,
  fn: (stack: TestLikeStack) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
  options: { cluster?: boolean } = {},
): Promise<T> {
  const e = process.env;
  if (e.API_URL && e.ADMIN_TOKEN && e.STACK_CONTROL_URL && e.MONGODB_URL && e.TEMPORAL_ADDRESS && e.FIXTURES_JSON) {
    console.log(`${label}: the stack at ${e.API_URL}`);
    return fn({
      apiUrl: e.API_URL,
      adminToken: e.ADMIN_TOKEN,
      controlUrl: e.STACK_CONTROL_URL,
      mongodbUrl: e.MONGODB_URL,
      temporal: temporalSettings(e),
      pagesUrl: (JSON.parse(e.FIXTURES_JSON) as { http: { url: string } }).http.url,
      outputDir: e.TEST_OUTPUT_DIR || path.join(root, 'test-output'),
      cluster: Boolean(e.CLUSTER_API_URLS_JSON),
      stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET || undefined,
    });
  }
  const { bootstrap } = (await import(new URL('../../../scripts/bootstrap.mjs', import.meta.url).href)) as {
    bootstrap: (o: {
      root: string;
      log: (line: string) => void;
      stripeMock?: boolean;
    }) => Promise<{ temporal: string; secantusd: string; stripeMock?: string }>;
  };
  const stack = await import('../../../scripts/stack/index.js');
  const log = (line: string) => console.log(`bootstrap: ${line}`);
  const tools = await bootstrap({ root, log, stripeMock: !options.cluster });
  if (options.cluster) {
    const { bootstrapCluster } = (await import(new URL('../../../scripts/bootstrap-cluster.mjs', import.meta.url).href)) as {
      bootstrapCluster: (o: { root: string; log: (line: string) => void }) => Promise<Record<string, string>>;
    };
    const { buildIfStale } = (await import(new URL('../../../scripts/build-if-stale.mjs', import.meta.url).href)) as {
      buildIfStale: (root: string) => Promise<void>;
    };
    Object.assign(tools, await bootstrapCluster({ root, log }));
    await buildIfStale(root);
  }
  const runDir = path.join(root, 'test-output', `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const supervisor = new stack.Supervisor({ logDir: path.join(runDir, 'logs') });
  supervisor.stopOnSignals();
  const started = performance.now();
  try {
    const s = options.cluster
      ? await stack.startTestCluster(supervisor, {
          root,
          runDir,
          tools: tools as Parameters<typeof stack.startTestCluster>[1]['tools'],
          env,
        })
      : await stack.startTestStack(supervisor, { root, runDir, tools, env });
    console.log(
      `${label}: own stack ready in ${((performance.now() - started) / 1000).toFixed(1)} s (logs in ${path.relative(process.cwd(), runDir)}/logs)`,
    );
    // Helpers that read the test environment (test/helpers/api.ts) then work against this stack.
    Object.assign(process.env, {
      API_URL: s.apiUrl,
      ADMIN_TOKEN: s.adminToken,
      FIXTURES_JSON: JSON.stringify(s.fixtures),
      MAIL_API_URL: s.mailApiUrl,
    });
    return await fn({
      apiUrl: s.apiUrl,
      adminToken: s.adminToken,
      controlUrl: s.controlUrl,
      mongodbUrl: s.env.MONGODB_URL!,
      temporal: temporalSettings(s.env),
      pagesUrl: s.fixtures.http.url,
      outputDir: runDir,
      cluster: Boolean(options.cluster),
      stripeWebhookSecret: s.env.STRIPE_WEBHOOK_SECRET || undefined,
    });
  } finally {
    await supervisor.stopAll();
  }
}
