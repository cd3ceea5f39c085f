#!/usr/bin/env node
//! `npm test`: installs what is missing, starts an isolated stack on free ports (fixtures,
//! Temporal, SecantusDB, MailDev, the API and the workers, all under `test-output/run-<time>/`), type-checks,
//! runs ava against it and stops everything. Arguments go to ava:
//! `npm test -- test/tools/hash-text.test.ts`. Exits with ava's code (1 if only the type check or the lint failed).
//! `--cluster` first (`npm run test:cluster`): the same against the production-shaped stack
//! (scripts/stack/cluster.ts, compiled service from dist/): the suites of ava.cluster.config.mjs,
//! the acceptance through the load balancer, then its faults alone.
//! `--traces` first (`npm run test:traces`): test/traces/ against a stack whose calls are traced to
//! a Jaeger of its own, built first when missing (scripts/jaeger-build.mjs). `npm test` never needs
//! Jaeger: its stack traces every call to a port nothing listens on (test/tracing/ checks what a
//! trace changes in answers, logs and memos).
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { bootstrapCluster } from './bootstrap-cluster.mjs';
import { buildIfStale } from './build-if-stale.mjs';
import { ensureJaeger } from './jaeger-build.mjs';
import { onPinnedNode } from './pinned-node.mjs';
import { exitingOnFailure, newRunDir } from './test-runs.mjs';
import { ACCEPTANCE, FAULTS } from '../ava.cluster.config.mjs';
import { STEPS as DISRUPTIVE_STEPS } from '../ava.disruptive.config.mjs';

// On a machine whose Node is older than 24, this runs again on the pinned one (and waits here).
await onPinnedNode();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
/** The project's own tsgo and ava (what npx would pick), without npx's start-up and notices. */
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const clusterMode = process.argv[2] === '--cluster';
const tracesMode = process.argv[2] === '--traces';
const avaArgs = process.argv.slice(clusterMode || tracesMode ? 3 : 2);

/** A hung run must not eat CI's 90 minutes: ava is ended after this long. */
const AVA_DEADLINE_MS = 60 * 60_000;
/** After ava reports a timed-out test it waits for that test's process, which may never end. */
const AFTER_TIMEOUT_GRACE_MS = 30_000;

const prepare = exitingOnFailure('npm test');

// The cluster runs without payments (its suites need none); the other stacks with stripe-mock.
const tools = await prepare(() => bootstrap({ root, stripeMock: !clusterMode }));
if (clusterMode) {
  Object.assign(tools, await prepare(() => bootstrapCluster({ root })));
  await prepare(() => buildIfStale(root));
}
// The trace suites' backend: built before the stack starts, the first time (minutes; said so).
const jaeger = tracesMode
  ? await prepare(() => ensureJaeger({ root, log: (line) => console.log(`npm run test:traces: ${line}`) }))
  : undefined;
const { tsImport } = await import('tsx/esm/api');
const stack = await tsImport('./stack/index.ts', import.meta.url);

const outputRoot = path.join(root, 'test-output');
const runPrefix = clusterMode ? 'cluster' : tracesMode ? 'traces' : 'run';
const runDir = newRunDir(outputRoot, runPrefix);
const logDir = path.join(runDir, 'logs');
mkdirSync(logDir, { recursive: true });
console.log(`test stack: logs in ${path.relative(process.cwd(), logDir)}/`);

const supervisor = new stack.Supervisor({ logDir });
supervisor.stopOnSignals();
// Before the stack is ready, a process that dies fails the start-up with its log tail; after,
// it is reported here and fails the run.
let stackReady = false;
const crashed = [];
supervisor.onUnexpectedExit((p) => {
  if (!stackReady) return;
  crashed.push(p);
  console.error(`\n${p.describeExit()} unexpectedly; its last lines:\n${p.tail()}\n`);
});

async function finish(code) {
  await supervisor.stopAll();
  process.exit(code);
}

try {
  // The type check and the lint are package.json's `typecheck` and `lint` scripts, the one place
  // that says how (TypeScript's native compiler, `tsgo`; `biome ci`: the lint rules and the formatting).
  const { readFile } = await import('node:fs/promises');
  const { scripts } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const [typecheck, ...typecheckArgs] = scripts.typecheck.split(' ');
  const [linter, ...lintArgs] = scripts.lint.split(' ');
  // The type check needs no stack: it runs while the stack starts. Both run under the
  // supervisor, as ava does (highest layer, stopped first), so a Ctrl-C takes them down with the stack.
  // (The cluster runs the compiled service: `npm run build` type-checked it already.)
  const tsc = clusterMode
    ? undefined
    : supervisor.start({ name: 'tsc', command: bin(typecheck), args: typecheckArgs, cwd: root, layer: 2, oneShot: true });
  const lint = clusterMode
    ? undefined
    : supervisor.start({ name: 'lint', command: bin(linter), args: [...lintArgs, '--colors=off'], cwd: root, layer: 2, oneShot: true });

  const testStack = clusterMode
    ? await stack.startTestCluster(supervisor, { root, runDir, tools })
    : await stack.startTestStack(supervisor, {
        root,
        runDir,
        tools,
        traces: jaeger ? { jaeger } : 'nowhere',
        onInfrastructureUp: () => console.log(`test stack: fixtures, Temporal and database up after ${seconds()}`),
      });
  const { env, fixtures } = testStack;
  stackReady = true;

  console.log(
    `test stack: ready after ${seconds()} (API ${testStack.apiUrl}, Temporal ${env.TEMPORAL_ADDRESS}, database ${env.MONGODB_URL})`,
  );
  // The tests start without waiting for the type check and the lint (a core would sit idle for
  // the half minute tsc takes alone); their verdicts are read, and a failure shown, after the tests.
  const checksFailed = async () => {
    let failed = false;
    for (const [check, what] of [
      [tsc, 'npm run typecheck'],
      [lint, 'npm run lint'],
    ]) {
      if (!check) continue;
      const { code } = await check.exited;
      if (code === 0 || supervisor.isStopping) continue;
      failed = true;
      console.error(`\n${what} failed (all of it in ${path.relative(process.cwd(), check.logFile)}):\n${check.tail(100)}\n`);
    }
    return failed;
  };

  const avaEnv = {
    ...env,
    // ava writes into a pipe (ours); keep its colours when we write to a terminal.
    ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: process.env.FORCE_COLOR ?? '1' } : {}),
    // Each test file is a process of its own that loads the same packages: V8's compiled code of
    // them, kept on disk by the first, spares the next ones compiling it again.
    NODE_COMPILE_CACHE: path.join(root, 'node_modules', '.cache', 'node-compile-cache'),
    API_URL: testStack.apiUrl,
    TEMPORAL_TEST_SERVER_PATH: tools.temporalTestServer,
    TEMPORAL_CLI_PATH: tools.temporal,
    HADOLINT_PATH: tools.hadolint,
    FIXTURES_JSON: JSON.stringify(fixtures),
    // The CA the apps trust, for tests that issue certificates from it (test/fixtures/tls-certs.ts).
    TEST_CA_CERT: fixtures.caCertFile,
    TEST_CA_KEY: fixtures.caKeyFile,
    TEST_OUTPUT_DIR: runDir,
    STACK_LOG_DIR: logDir,
    STACK_CONTROL_URL: testStack.controlUrl,
    ...(testStack.jaegerQueryUrl && { JAEGER_QUERY_URL: testStack.jaegerQueryUrl }),
    GOLD_FEED_CONTROL_URL: fixtures.goldFeed.controlUrl,
    // The stack's MailDev: tests read the mail the service sent there (test/helpers/mailbox.ts).
    MAIL_API_URL: testStack.mailApiUrl,
    // Each app process's operator port (METRICS_PORT): `/metrics`, and the workers' `/healthz`.
    ...(testStack.operatorUrls && { OPERATOR_URLS_JSON: JSON.stringify(testStack.operatorUrls) }),
    ...(clusterMode && {
      CLUSTER_METRICS_JSON: JSON.stringify(testStack.cluster.metricsUrls),
      CLUSTER_API_URLS_JSON: JSON.stringify(testStack.cluster.replicaUrls),
      CLUSTER_UI_URL: testStack.cluster.uiUrl,
    }),
  };
  const runAva = async (name, args) => {
    const ava = supervisor.start({
      name,
      command: bin('ava'),
      args,
      cwd: root,
      layer: 2,
      oneShot: true,
      passthrough: true,
      stopTimeoutMs: 5_000,
      env: avaEnv,
    });
    const endAva = (why) => {
      if (!ava.running) return;
      console.error(`\nnpm test: ${why}; ending ${name}`);
      ava.signalGroup('SIGKILL');
    };
    const deadline = setTimeout(() => endAva(`still running after ${AVA_DEADLINE_MS / 60_000} minutes`), AVA_DEADLINE_MS);
    ava.onLine((line) => {
      if (line.includes('Timed out while running tests')) {
        setTimeout(
          () => endAva(`ava timed out a test and has not finished ${AFTER_TIMEOUT_GRACE_MS / 1000} s later`),
          AFTER_TIMEOUT_GRACE_MS,
        ).unref();
      }
    });
    const exit = await ava.exited;
    clearTimeout(deadline);
    return exit.code ?? 1; // killed by a signal: a failure
  };

  // The suite first; then, alone, the suites that restart or kill parts of the stack, which
  // would fail whatever ran beside them. Named files run as they are, in one go.
  if (clusterMode) {
    const config = ['--config', 'ava.cluster.config.mjs'];
    let code = await runAva('ava', [...config, ...(avaArgs.length ? avaArgs : ACCEPTANCE)]);
    if (avaArgs.length === 0 && code === 0) {
      console.log('\nnpm run test:cluster: the faults of the topology, alone');
      code = await runAva('ava-faults', [...config, '--serial', ...FAULTS]);
    }
    if (crashed.length)
      console.error(`stack processes that died during the run: ${crashed.map((p) => p.name).join(', ')} (logs in ${logDir})`);
    await finish(code !== 0 || crashed.length > 0 ? code || 1 : 0);
  }
  if (tracesMode) {
    const code = await runAva('ava', ['--config', 'ava.traces.config.mjs', ...avaArgs]);
    if (crashed.length)
      console.error(`stack processes that died during the run: ${crashed.map((p) => p.name).join(', ')} (logs in ${logDir})`);
    const checksFail = await checksFailed();
    await finish(code !== 0 || checksFail || crashed.length > 0 ? code || 1 : 0);
  }
  // A disruptive suite named among other files still runs alone, after them: beside them it would
  // break what they test (a database killed under another file's calls).
  const disruptiveDir = path.join(root, 'test', 'disruptive');
  const isFlag = (arg) => arg.startsWith('-');
  const isDisruptive = (arg) => {
    const named = path.resolve(root, arg);
    return !isFlag(arg) && (named === disruptiveDir || named.startsWith(disruptiveDir + path.sep));
  };
  const namedDisruptive = avaArgs.filter(isDisruptive);
  const others = avaArgs.filter((arg) => !isDisruptive(arg));
  const onlyDisruptiveNamed = namedDisruptive.length > 0 && others.every(isFlag);
  let testsCode = onlyDisruptiveNamed ? 0 : await runAva('ava', others);
  const disruptiveSuites =
    avaArgs.length === 0
      ? existsSync(disruptiveDir) && readdirSync(disruptiveDir).some((f) => f.endsWith('.test.ts'))
      : namedDisruptive.length > 0;
  if (testsCode === 0 && disruptiveSuites) {
    console.log('\nnpm test: the disruptive suites (test/disruptive/), step by step (ava.disruptive.config.mjs)');
    // The steps' files that were asked for (all of them in a whole run); a name that covers no
    // step's file (a glob) runs after them, as named.
    const covers = (arg, file) => {
      const named = path.resolve(root, arg);
      const full = path.resolve(root, file);
      return full === named || full.startsWith(named + path.sep);
    };
    const asked = (file) => namedDisruptive.length === 0 || namedDisruptive.some((arg) => covers(arg, file));
    const steps = DISRUPTIVE_STEPS.map((step) => step.filter(asked)).filter((step) => step.length > 0);
    const unstepped = namedDisruptive.filter((arg) => !DISRUPTIVE_STEPS.flat().some((file) => covers(arg, file)));
    if (unstepped.length > 0) steps.push(unstepped);
    for (const files of steps) {
      const concurrency = ['--concurrency', String(files.length)];
      testsCode = await runAva('ava-disruptive', [
        '--config',
        'ava.disruptive.config.mjs',
        ...concurrency,
        ...avaArgs.filter(isFlag),
        ...files,
      ]);
      if (testsCode !== 0) break;
    }
  }
  // After the tests: every status the OpenAPI document promises has a test that owns it, and each
  // owner that ran made the API answer it (a partial run judges only the owners it ran).
  if (testsCode === 0) {
    const coverage = await stack.statusCoverage(testStack.apiUrl, testStack.operatorUrls.api, avaArgs, root);
    console.log(`\nnpm test: ${stack.formatCoverage(coverage)}`);
    if (coverage.missing.length) {
      console.error(
        `npm test: documented statuses without a test that produces them: ${coverage.missing.join(', ')} (scripts/stack/status-coverage.ts)`,
      );
      testsCode = 1;
    }
  }
  if (crashed.length)
    console.error(`stack processes that died during the run: ${crashed.map((p) => p.name).join(', ')} (logs in ${logDir})`);
  const checksFail = await checksFailed();
  await finish(testsCode !== 0 ? testsCode : checksFail || crashed.length > 0 ? 1 : 0);
} catch (err) {
  // After a Ctrl-C the signal handler reports and exits; the errors it causes here are noise.
  if (supervisor.isStopping) await new Promise(() => {});
  console.error(`\nnpm test: ${err.message}`);
  await finish(1);
}
