//! Typed access to what `npm test` (scripts/test.mjs) hands the tests: where the stack and the
//! fixtures are. Each getter fails with a clear message when a test runs outside `npm test`.
import { temporalSettings, type TemporalSettings } from '../../lib/config-temporal.js';
import type { FixturesInfo } from '../fixtures/info.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: run the tests through \`npm test\` (e.g. \`npm test -- test/tools/hash-text.test.ts\`), which starts the stack they need`,
    );
  }
  return value;
}

let fixtures: FixturesInfo | undefined;

export const testEnv = {
  /** Base URL of the API under test, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  apiUrl: () => required('API_URL'),
  /** The operator token of the test stack (Authorization: Bearer ...). */
  adminToken: () => required('ADMIN_TOKEN'),
  /** The test stack's database, e.g. `mongodb://127.0.0.1:40123/utility_tools`. */
  mongodbUrl: () => required('MONGODB_URL'),
  /** The test stack's Temporal frontend, `127.0.0.1:<port>`. */
  temporalAddress: () => required('TEMPORAL_ADDRESS'),
  temporalNamespace: () => process.env.TEMPORAL_NAMESPACE || 'default',
  /**
   * The test stack's Temporal as the service reaches it (lib/config-temporal.ts): under
   * `npm run test:cluster` with the mutual TLS its frontend requires. Connect with
   * `temporalConnectOptions(testEnv.temporal())`, or withTemporalClient (helpers/temporal.ts).
   */
  temporal: (): TemporalSettings => (required('TEMPORAL_ADDRESS'), temporalSettings(process.env)),
  /** The time-skipping test server binary, for `TestWorkflowEnvironment.createTimeSkipping`. */
  temporalTestServerPath: () => required('TEMPORAL_TEST_SERVER_PATH'),
  /** The `temporal` CLI (the stack's server), for a test's own dev server (`TestWorkflowEnvironment.createLocal`). */
  temporalCliPath: () => required('TEMPORAL_CLI_PATH'),
  /** hadolint, the Dockerfile's linter (installed by the bootstrap). */
  hadolintPath: () => required('HADOLINT_PATH'),
  /** This run's directory under test-output/: put files a test wants to keep here. */
  outputDir: () => required('TEST_OUTPUT_DIR'),
  /** Where the stack's processes write their logs (`<name>.log`). */
  stackLogDir: () => required('STACK_LOG_DIR'),
  /** The run's CA (PEM files), which the app processes trust: issue server certificates from it. */
  testCaCertFile: () => required('TEST_CA_CERT'),
  testCaKeyFile: () => required('TEST_CA_KEY'),
  /** The stack's control endpoint (scripts/stack/control.ts): what the disruptive suites break. */
  stackControlUrl: () => required('STACK_CONTROL_URL'),
  /** The stack's MailDev (its REST API, `GET /api/email`), where every mail the service sends arrives. */
  mailApiUrl: () => required('MAIL_API_URL'),
  /**
   * An app process's operator port (its METRICS_PORT: `/metrics`, and a worker's `/healthz`), by
   * name: `api`, `workers` (every pool in one process).
   */
  operatorUrl: (name: string): string => {
    const url = (JSON.parse(required('OPERATOR_URLS_JSON')) as Record<string, string>)[name];
    if (!url) throw new Error(`OPERATOR_URLS_JSON names no process ${name}`);
    return url;
  },
  /** The gold feed fixture's control (test/fixtures/gold-feed.ts): its mode, shared by every test file. */
  goldFeedControlUrl: () => required('GOLD_FEED_CONTROL_URL'),
  /** Addresses of the fixture servers (test/fixtures/start.ts). */
  fixtures: (): FixturesInfo => (fixtures ??= JSON.parse(required('FIXTURES_JSON')) as FixturesInfo),
};
