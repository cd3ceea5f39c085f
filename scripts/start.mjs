#!/usr/bin/env node
//! `npm start`: installs what is missing, then runs the whole service on this machine: the
//! Temporal dev server and SecantusDB (unless TEMPORAL_ADDRESS / MONGODB_URL point elsewhere),
//! MailDev with its inbox (unless SMTP_URL names a mail server), the API and every worker pool,
//! each with its operator port (metrics, the workers' health) on 127.0.0.1.
//! State lives in `.data/`, so a restart keeps it. Ctrl-C stops everything this started.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { ensureJaeger, jaegerBinary } from './jaeger-build.mjs';
import { onPinnedNode } from './pinned-node.mjs';

// On a machine whose Node is older than 24, this runs again on the pinned one (and waits here).
await onPinnedNode();

const started = Date.now();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const data = path.join(root, '.data');
const rel = (p) => path.relative(process.cwd(), p) || '.';

/** Fixed local ports; PORT (the API) may be overridden like in production. */
const PORTS = { api: Number(process.env.PORT || 8080), temporal: 7233, temporalUi: 8233, database: 27017 };

const tools = await bootstrap({ root });
// Traces go to a local Jaeger unless OTEL_EXPORTER_OTLP_ENDPOINT names a collector. Its first
// build takes minutes, so nothing waits for it: the apps send to its port from the start, and it
// joins when built (spans sent before are dropped).
const localJaeger = !process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
// node_modules exists now: load the TypeScript stack helpers through tsx.
const { tsImport } = await import('tsx/esm/api');
const stack = await tsImport('./stack/index.ts', import.meta.url);

mkdirSync(data, { recursive: true });
const logDir = path.join(data, 'logs');
// Infrastructure logs go to files only; the API and workers are echoed to this terminal.
const { supervisor, fail } = stack.superviseLocalStart(logDir);

try {
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  const [temporal, database, mail] = await Promise.all([
    process.env.TEMPORAL_ADDRESS
      ? stack
          .waitForTemporal(stack.temporalSettings(process.env), { timeoutMs: 30_000 })
          .then(() => ({ address: process.env.TEMPORAL_ADDRESS }))
      : stack.startTemporal(supervisor, {
          binary: tools.temporal,
          port: PORTS.temporal,
          uiPort: PORTS.temporalUi,
          dbFile: path.join(data, 'temporal.sqlite'),
          namespace,
        }),
    process.env.MONGODB_URL
      ? stack.waitForMongo(process.env.MONGODB_URL, { timeoutMs: 30_000 }).then(() => ({ url: process.env.MONGODB_URL }))
      : stack.startDatabase(supervisor, { binary: tools.secantusd, port: PORTS.database, dir: path.join(data, 'secantus') }),
    stack.startLocalMail(supervisor, { root, mailDirectory: path.join(data, 'mail') }),
  ]);

  await stack.assertPortFree(PORTS.api, 'API', 'set PORT to use another one');
  // Their operator ports (metrics, the workers' health) on 127.0.0.1, never the public port.
  const operatorPorts = stack.localOperatorPorts(process.env);
  const movePorts = 'set METRICS_PORT to use another pair (the workers take the port after it)';
  await stack.assertPortFree(operatorPorts.api, "API's metrics", movePorts);
  await stack.assertPortFree(operatorPorts.workers, "workers' metrics", movePorts);
  const adminTokenFile = path.join(data, 'admin-token');
  const env = {
    WEBHOOKS_ALLOW_LOCALHOST: 'true', // local development: webhooks to localhost receivers
    ...stack.localBlobStore(path.join(data, 'blobs')),
    ...process.env, // anything the user set wins
    ...mail.env,
    MONGODB_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: namespace,
    SECRET_KEY: stack.keptSecret(data, 'SECRET_KEY', 'secret-key', () => randomBytes(32).toString('hex')),
    ADMIN_TOKEN: stack.keptSecret(data, 'ADMIN_TOKEN', 'admin-token', () => randomBytes(24).toString('base64url')),
  };
  // Locally every call is traced (the sampler's default keeps one in ten: docs/CONFIGURATION.md).
  if (localJaeger)
    Object.assign(env, stack.tracingEnv(stack.LOCAL_JAEGER_PORTS, process.env.OTEL_TRACES_SAMPLER || 'parentbased_always_on'));
  const jaegerWasBuilt = existsSync(jaegerBinary(root));
  // Their JSON log lines shown readable on a terminal (JSON still in their log files and when piped).
  const apps = await stack.startApps(supervisor, {
    root,
    env,
    apiPort: PORTS.api,
    metricsPorts: { ...operatorPorts },
    echo: true,
    echoFormat: stack.terminalLogFormat(),
  });
  const jaegerUrl = `http://localhost:${stack.LOCAL_JAEGER_PORTS.query}`;
  let jaegerUp = false;
  // A first build starts only now, once the service is up: it would take the cores the start needs.
  const jaegerBuilt = localJaeger ? ensureJaeger({ root, log: (line) => console.log(`npm start: ${line}`) }) : undefined;
  const jaegerStarted =
    jaegerBuilt && stack.startLocalJaeger(supervisor, { root, built: jaegerBuilt, prefix: 'npm start' }).then((up) => (jaegerUp = up));
  // Built already: Jaeger is up in a second, so the summary can say so. Otherwise a line will.
  if (jaegerWasBuilt) await jaegerStarted;

  const summary = stack.startSummary({
    startedS: (Date.now() - started) / 1000,
    apiPort: PORTS.api,
    temporal: temporal.uiUrl ? { uiUrl: temporal.uiUrl } : { address: temporal.address },
    database: database.process
      ? { url: database.url, dataDir: rel(path.join(data, 'secantus')) }
      : { redactedUrl: stack.redactUrl(database.url) },
    adminTokenFile: process.env.ADMIN_TOKEN ? undefined : rel(adminTokenFile),
    mailLine: mail.line,
    traces: localJaeger
      ? { jaegerUrl, state: jaegerUp ? 'up' : jaegerWasBuilt ? 'not started' : 'being built' }
      : { collector: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT },
    payments:
      process.env.STRIPE_SECRET_KEY && process.env.STRIPE_WEBHOOK_SECRET
        ? process.env.STRIPE_SECRET_KEY.startsWith('sk_live_')
          ? 'live'
          : 'test'
        : undefined,
    operatorUrls: apps.operatorUrls,
    logDir: rel(logDir),
  });
  const lines = ['', ...summary, ''];
  console.log(lines.join('\n'));
} catch (err) {
  await fail(err.message);
}
