//! The cluster's Temporal frontend requires mutual TLS, as a secured production Temporal does, and
//! the whole cluster runs through it (every other suite here calls through the API and workers
//! connected with TEMPORAL_TLS_*): a client that shows no certificate is refused, whether it speaks
//! plain TCP, TLS without a certificate, or presents one another authority signed; the Temporal CLI
//! without one too. The same client with the service's certificate is served.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { temporalConnectOptions, type TemporalSettings } from '../../lib/config-temporal.js';
import { testEnv } from '../helpers/env.js';
import { createCa, issueLeaf } from '../fixtures/tls-certs.js';

const run = promisify(execFile);

/** The stack's settings with some TLS taken away or swapped: a client other than the service. */
function client(change: (tls: NonNullable<TemporalSettings['tls']>) => TemporalSettings['tls'] | undefined): TemporalSettings {
  const settings = testEnv.temporal();
  if (!settings.tls?.clientCertPair) throw new Error('the stack gives no client certificate: is this npm run test:cluster?');
  return { ...settings, tls: change(settings.tls) };
}

/**
 * What each of the SDK's connections says when `settings` asks for the namespace: the client's
 * (grpc-js: the tests, the stack's scripts) and the native one the API and the workers use; none
 * for one that was answered.
 */
async function refusalsOf(t: ExecutionContext, what: string, settings: TemporalSettings): Promise<{ client?: string; native?: string }> {
  const options = temporalConnectOptions(settings);
  const outcome = async (ask: () => Promise<unknown>) =>
    ask().then(
      () => undefined,
      (err: Error) => err.message,
    );
  const client = await outcome(async () => {
    const connection = await Connection.connect({ ...options, connectTimeout: '5s' });
    await connection.workflowService.describeNamespace({ namespace: settings.namespace }).finally(() => connection.close());
  });
  const native = await outcome(async () => {
    const connection = await NativeConnection.connect(options);
    await connection.workflowService.describeNamespace({ namespace: settings.namespace }).finally(() => connection.close());
  });
  t.log(`${what}: the client: ${client ?? 'answered'}; the native connection: ${native ?? 'answered'}`);
  return { client, native };
}

/**
 * Refused by TLS, as the native connection (the API's and the workers') reports it: the server's
 * `alert`, or, when the server closes the connection before the client reads the alert, that:
 * hyper's "connection closed", "connection was not ready" for the request waiting on it, or a
 * "broken pipe" for the request it was writing. Never an answer, nor a refusal from past the
 * handshake (a namespace, a permission).
 */
const refusedByTls = (alert: string) => new RegExp(`${alert}|connection closed|connection was not ready|broken pipe`);

test('the service reaches the frontend with its own certificate, through its client and a worker connection alike', async (t) => {
  t.deepEqual(await refusalsOf(t, 'with the certificate', testEnv.temporal()), { client: undefined, native: undefined });
});

test('a client without a certificate is refused: over TLS with the right CA, and over plain TCP', async (t) => {
  const withoutCertificate = await refusalsOf(
    t,
    'TLS, no client certificate',
    client(({ clientCertPair: _, ...rest }) => rest),
  );
  t.truthy(withoutCertificate.client);
  t.regex(withoutCertificate.native ?? '', refusedByTls('CertificateRequired'));
  const plain = await refusalsOf(
    t,
    'plain TCP',
    client(() => undefined),
  );
  t.truthy(plain.client);
  t.truthy(plain.native);
});

test("a client certificate from another authority is refused, though it is a valid client's", async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'other-ca-'));
  try {
    const other = await createCa(dir, 'Not the Cluster CA');
    const leaf = await issueLeaf(other, { names: ['utility-tools'], usage: ['clientAuth'] });
    const refused = await refusalsOf(
      t,
      "another authority's certificate",
      client((tls) => ({ ...tls, clientCertPair: { crt: Buffer.from(leaf.cert), key: Buffer.from(leaf.key) } })),
    );
    t.truthy(refused.client);
    t.regex(refused.native ?? '', refusedByTls('UnknownCA'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the Temporal CLI without a certificate is refused, and with the service's answers", async (t) => {
  const cli = testEnv.temporalCliPath();
  const env = process.env;
  const args = ['operator', 'namespace', 'describe', '--namespace', testEnv.temporalNamespace(), '--address', env.TEMPORAL_ADDRESS!];
  const caOnly = ['--tls-ca-path', env.TEMPORAL_TLS_CA!];
  const refused = await run(cli, [...args, ...caOnly], { env: { PATH: env.PATH, HOME: env.HOME }, timeout: 60_000 }).then(
    () => undefined,
    (err: { stderr?: string; message: string }) => err.stderr?.trim() || err.message,
  );
  t.log(`the CLI without a certificate: ${refused}`);
  t.truthy(refused);
  const served = await run(cli, [...args, ...caOnly, '--tls-cert-path', env.TEMPORAL_TLS_CERT!, '--tls-key-path', env.TEMPORAL_TLS_KEY!], {
    env: { PATH: env.PATH, HOME: env.HOME },
    timeout: 60_000,
  });
  t.regex(served.stdout, new RegExp(testEnv.temporalNamespace()));
});
