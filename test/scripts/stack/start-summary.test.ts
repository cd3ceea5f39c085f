//! What `npm start` prints once the service is up: the README's sample is what the summary prints
//! for the same start, the operator ports among the addresses; the ports it gives the API and the
//! workers (METRICS_PORT moves them).
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inboxLine, LOCAL_MAILDEV_PORTS } from '../../../scripts/stack/maildev.js';
import { LOCAL_JAEGER_PORTS } from '../../../scripts/stack/jaeger.js';
import { LOCAL_METRICS_PORT, localOperatorPorts, startSummary, type StartFacts } from '../../../scripts/stack/start-summary.js';
import { samplesOf } from '../../docs/markdown.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The start the README shows: everything local, the default ports, Jaeger built. */
const README_START: StartFacts = {
  startedS: 6.1,
  apiPort: 8080,
  temporal: { uiUrl: 'http://localhost:8233' },
  database: { url: 'mongodb://127.0.0.1:27017/utility_tools', dataDir: '.data/secantus' },
  adminTokenFile: '.data/admin-token',
  mailLine: inboxLine({
    webUrl: `http://localhost:${LOCAL_MAILDEV_PORTS.web}`,
    smtpUrl: `smtp://127.0.0.1:${LOCAL_MAILDEV_PORTS.smtp}`,
  }),
  traces: { jaegerUrl: `http://localhost:${LOCAL_JAEGER_PORTS.query}`, state: 'up' },
  operatorUrls: { api: `http://127.0.0.1:${LOCAL_METRICS_PORT}`, workers: `http://127.0.0.1:${LOCAL_METRICS_PORT + 1}` },
  logDir: '.data/logs',
};

test("the README's start summary is what npm start prints, metrics and the workers' health among the addresses", (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const sample = samplesOf(readme).find((s) => s.code.startsWith('Utility Tools is running'));
  if (!sample) return t.fail('README.md has no sample of the start summary');
  const printed = startSummary(README_START);
  t.is(sample.code, `${printed.join('\n')}\n`);
  const metrics = printed.find((line) => line.startsWith('  Metrics'));
  t.regex(metrics ?? '', /http:\/\/127\.0\.0\.1:9464\/metrics \(API\)/);
  t.regex(metrics ?? '', /http:\/\/127\.0\.0\.1:9465\/metrics \(workers; their health: http:\/\/127\.0\.0\.1:9465\/healthz\)/);
});

test('the summary names what the user configured instead of the local parts', (t) => {
  const printed = startSummary({
    ...README_START,
    temporal: { address: 'temporal.internal:7233' },
    database: { redactedUrl: 'mongodb://user:***@db.internal/ut' },
    adminTokenFile: undefined,
    traces: { collector: 'http://collector:4318' },
    payments: 'test',
  }).join('\n');
  t.regex(printed, /Temporal {5}temporal\.internal:7233 \(TEMPORAL_ADDRESS\)/);
  t.regex(printed, /Database {5}mongodb:\/\/user:\*\*\*@db\.internal\/ut \(MONGODB_URL\)/);
  t.regex(printed, /Admin token {2}from ADMIN_TOKEN/);
  t.regex(printed, /Traces {7}http:\/\/collector:4318 \(OTEL_EXPORTER_OTLP_ENDPOINT\)/);
  t.regex(printed, /Payments {5}Stripe \(test mode\); its events to http:\/\/localhost:8080\/api\/v1\/billing\/stripe-webhook/);
});

test('npm start gives the API METRICS_PORT (9464 by default) and the workers the port after it', (t) => {
  t.deepEqual(localOperatorPorts({}), { api: 9464, workers: 9465 });
  t.deepEqual(localOperatorPorts({ METRICS_PORT: '' }), { api: 9464, workers: 9465 });
  t.deepEqual(localOperatorPorts({ METRICS_PORT: '19464' }), { api: 19464, workers: 19465 });
  for (const bad of ['0', '65535', 'x', '94.64', '-1'])
    t.throws(() => localOperatorPorts({ METRICS_PORT: bad }), { message: /METRICS_PORT must be a port from 1 to 65534/ }, bad);
});
