#!/usr/bin/env node
//! `npm run start:cluster`: the production shape of docker-compose.yml on this machine, as plain
//! processes: PostgreSQL and the Temporal server on it (built from its Go module), the Temporal
//! UI, SecantusDB (unless MONGODB_URL), MailDev with its inbox (unless SMTP_URL), and the
//! compiled service (`npm run build`, dist/): two API replicas behind HAProxy and one process per
//! worker pool, the cpu pool twice. Installs what is missing first; state lives in
//! `.data/cluster/` (PostgreSQL's, started by root, in /var/lib/utility-tools/, linked from there:
//! scripts/stack/postgres-data.ts), so a second run keeps it. Ctrl-C stops everything. A part
//! that fails to start is reported in one line.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { bootstrapCluster } from './bootstrap-cluster.mjs';
import { buildIfStale } from './build-if-stale.mjs';
import { ensureJaeger, jaegerBinary } from './jaeger-build.mjs';
import { onPinnedNode } from './pinned-node.mjs';

// On a machine whose Node is older than 24, this runs again on the pinned one (and waits here).
await onPinnedNode();

const started = Date.now();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const data = path.join(root, '.data', 'cluster');
const rel = (p) => path.relative(process.cwd(), p) || '.';

/** Installing or building failed: its message (with the failed command's output), no stack trace. */
async function prepare(step) {
  try {
    return await step();
  } catch (err) {
    console.error(`start:cluster: ${err.message}`);
    process.exit(1);
  }
}

const tools = await prepare(async () => ({ ...(await bootstrap({ root })), ...(await bootstrapCluster({ root })) }));
// Traces go to a local Jaeger, as with npm start, unless OTEL_EXPORTER_OTLP_ENDPOINT names a collector.
const localJaeger = !process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
await prepare(() => buildIfStale(root));
const { tsImport } = await import('tsx/esm/api');
const stack = await tsImport('./stack/index.ts', import.meta.url);

mkdirSync(data, { recursive: true });
// The internal ports are chosen once and kept: Temporal records its addresses in PostgreSQL.
// The public ones follow npm start's (PORT, TEMPORAL_UI_PORT and TEMPORAL_PORT override them).
const portsFile = path.join(data, 'ports.json');
const saved = existsSync(portsFile) ? JSON.parse(readFileSync(portsFile, 'utf8')) : {};
// Kept ports win; a part added since they were chosen gets a fresh one.
const fresh = await stack.freeClusterPorts();
const internal = {
  ...fresh,
  ...saved,
  temporal: { ...fresh.temporal, ...saved.temporal },
  api: { ...fresh.api, ...saved.api },
  metrics: { ...fresh.metrics, ...saved.metrics },
};
writeFileSync(portsFile, `${JSON.stringify(internal, null, 2)}\n`);
const ports = {
  ...internal,
  loadBalancer: Number(process.env.PORT || 8080),
  ui: Number(process.env.TEMPORAL_UI_PORT || 8233),
  temporal: { ...internal.temporal, frontend: Number(process.env.TEMPORAL_PORT || 7233) },
};

const logDir = path.join(data, 'logs');
// While starting, a part that dies is one line (the part, why, where its output is); once up, the lines that explain the crash.
const { supervisor, fail, markUp } = stack.superviseLocalStart(logDir, { oneLineWhileStarting: true });

try {
  const adminTokenFile = path.join(data, 'admin-token');
  // MailDev beside the cluster: the apps know its address before it answers.
  const [mail, cluster] = await Promise.all([
    stack.startLocalMail(supervisor, { root, mailDirectory: path.join(data, 'mail') }),
    stack.startCluster(supervisor, {
      root,
      dataDir: data,
      tools,
      ports,
      mongodbUrl: process.env.MONGODB_URL || undefined,
      namespace: process.env.TEMPORAL_NAMESPACE || 'default',
      echo: true,
      tlsCert: process.env.TLS_CERT || undefined,
      env: {
        WEBHOOKS_ALLOW_LOCALHOST: 'true', // local development: webhooks to localhost receivers
        // Every call traced locally (the service's default keeps one in ten).
        ...(localJaeger && stack.tracingEnv(stack.LOCAL_JAEGER_PORTS, 'parentbased_always_on')),
        ...process.env, // anything the user set wins
        ...stack.localMailEnv(),
        PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL || `https://localhost:${ports.loadBalancer}`,
        SECRET_KEY: stack.keptSecret(data, 'SECRET_KEY', 'secret-key', () => randomBytes(32).toString('hex')),
        ADMIN_TOKEN: stack.keptSecret(data, 'ADMIN_TOKEN', 'admin-token', () => randomBytes(24).toString('base64url')),
      },
    }),
  ]);
  markUp();
  // A first build starts only now, once the cluster is up: it would take the cores its start needs.
  const jaegerWasBuilt = existsSync(jaegerBinary(root));
  const jaegerBuilt = localJaeger ? ensureJaeger({ root, log: (line) => console.log(`start:cluster: ${line}`) }) : undefined;
  const jaegerUp = jaegerBuilt && stack.startLocalJaeger(supervisor, { root, built: jaegerBuilt, prefix: 'start:cluster' });
  const jaegerNow = jaegerWasBuilt ? await jaegerUp : false;
  const metrics = Object.entries(cluster.metricsUrls).map(([name, url]) => `    ${name.padEnd(15)}${url}`);
  console.log(
    [
      '',
      `Utility Tools (production shape) is running (started in ${((Date.now() - started) / 1000).toFixed(1)} s).`,
      `  API          ${cluster.apiUrl}  (HAProxy over api-1 and api-2, found by DNS; reference: /docs)`,
      cluster.caCertFile
        ? `  TLS          a certificate of this machine's own: trust ${rel(cluster.caCertFile)} (curl --cacert, NODE_EXTRA_CA_CERTS)`
        : '  TLS          TLS_CERT',
      `  Temporal UI  ${cluster.uiUrl}`,
      `  Temporal     ${cluster.temporalAddress} (server on PostgreSQL, data in ${cluster.postgresDataDir === path.join(data, 'postgres') ? rel(cluster.postgresDataDir) : `${cluster.postgresDataDir}, linked from ${rel(path.join(data, 'postgres'))}`})`,
      `               mutual TLS: its authority, the service's certificate and key in ${rel(path.dirname(cluster.env.TEMPORAL_TLS_CERT))}/ (TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_SERVER_NAME=localhost)`,
      process.env.MONGODB_URL
        ? `  Database     ${stack.redactUrl(cluster.mongodbUrl)} (MONGODB_URL)`
        : `  Database     ${cluster.mongodbUrl} (SecantusDB, data in ${rel(path.join(data, 'secantus'))})`,
      process.env.ADMIN_TOKEN ? '  Admin token  from ADMIN_TOKEN' : `  Admin token  ${rel(adminTokenFile)}`,
      mail.line,
      '  Metrics (Prometheus):',
      ...metrics,
      localJaeger
        ? `  Traces       http://localhost:${stack.LOCAL_JAEGER_PORTS.query}/api/traces/<traceId>  (Jaeger, every call; ${jaegerNow ? 'up' : jaegerWasBuilt ? 'not started: see the line above' : 'being built, minutes the first time: a line says when it is up; calls until then are not kept'})`
        : `  Traces       ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT} (OTEL_EXPORTER_OTLP_ENDPOINT)`,
      `  Logs         ${rel(logDir)}/`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
} catch (err) {
  await fail(err.message);
}
