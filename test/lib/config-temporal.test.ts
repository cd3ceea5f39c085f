//! TEMPORAL_* read and checked once (lib/config-temporal.ts): TLS and an API key turned on by their
//! variables, handed to the SDK as its own options; each mistake an operator can make refused at
//! start with a message naming the variable, never a key's or a file's content. Certificates from
//! an authority made here with openssl.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { ConfigError, loadConfig } from '../../lib/config.js';
import { temporalConnectOptions, temporalSettings } from '../../lib/config-temporal.js';
import { createCa, issueLeaf, type KeyPair } from '../fixtures/tls-certs.js';

const DAY = 86_400_000;
let dir: string;
/** Files of the authority and of certificates it signs, by name. */
const files: Record<string, string> = {};

async function pair(name: string, leaf: KeyPair) {
  files[`${name}.pem`] = path.join(dir, `${name}.pem`);
  files[`${name}.key`] = path.join(dir, `${name}.key`);
  await writeFile(files[`${name}.pem`]!, leaf.cert);
  await writeFile(files[`${name}.key`]!, leaf.key);
}

test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'config-temporal-'));
  const ca = await createCa(path.join(dir, 'ca'), 'Temporal Test CA');
  files.ca = ca.certFile;
  await pair('client', await issueLeaf(ca, { names: ['utility-tools'], usage: ['clientAuth'] }));
  await pair('other', await issueLeaf(ca, { names: ['someone-else'], usage: ['clientAuth'] }));
  await pair('server-only', await issueLeaf(ca, { names: ['localhost'], usage: ['serverAuth'] }));
  await pair(
    'expired',
    await issueLeaf(ca, {
      names: ['utility-tools'],
      usage: ['clientAuth'],
      notBefore: new Date(Date.now() - 3 * DAY),
      notAfter: new Date(Date.now() - DAY),
    }),
  );
  files.garbage = path.join(dir, 'garbage.pem');
  await writeFile(files.garbage, 'not a certificate\n');
  files.unreadable = path.join(dir, 'unreadable.pem');
  await writeFile(files.unreadable, '');
  await chmod(files.unreadable, 0);
});

test.after.always(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mtls = () => ({ TEMPORAL_TLS_CA: files.ca, TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: files['client.key'] });

test('unset: the local default, plain TCP, no key', (t) => {
  t.deepEqual(temporalSettings({}), { address: '127.0.0.1:7233', namespace: 'default' });
  t.deepEqual(temporalConnectOptions(temporalSettings({ TEMPORAL_ADDRESS: 'temporal:7233' })), { address: 'temporal:7233' });
});

test('mutual TLS: the CA, the certificate and its key as the SDK takes them, with the server name', async (t) => {
  const settings = temporalSettings({
    TEMPORAL_ADDRESS: 'ns.a1b2c.tmprl.cloud:7233',
    TEMPORAL_NAMESPACE: 'ns.a1b2c',
    ...mtls(),
    TEMPORAL_TLS_SERVER_NAME: 'frontend.example.com',
  });
  t.is(settings.namespace, 'ns.a1b2c');
  const options = temporalConnectOptions(settings);
  t.is(options.address, 'ns.a1b2c.tmprl.cloud:7233');
  t.is(options.tls?.serverNameOverride, 'frontend.example.com');
  t.regex(options.tls!.serverRootCACertificate!.toString(), /BEGIN CERTIFICATE/);
  t.regex(options.tls!.clientCertPair!.crt.toString(), /BEGIN CERTIFICATE/);
  t.regex(options.tls!.clientCertPair!.key.toString(), /PRIVATE KEY/);
  t.is(options.apiKey, undefined);
});

test("a CA alone: TLS checked against it, no client certificate; a certificate alone: the system's CAs", (t) => {
  t.deepEqual(Object.keys(temporalSettings({ TEMPORAL_TLS_CA: files.ca }).tls!), ['serverRootCACertificate']);
  t.deepEqual(Object.keys(temporalSettings({ TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: files['client.key'] }).tls!), [
    'clientCertPair',
  ]);
});

test("an API key turns TLS on (the system's CAs) and is sent as the SDK's apiKey", (t) => {
  const options = temporalConnectOptions(temporalSettings({ TEMPORAL_API_KEY: 'eyJhbGciOi.key-of-temporal-cloud' }));
  t.deepEqual(options, { address: '127.0.0.1:7233', tls: {}, apiKey: 'eyJhbGciOi.key-of-temporal-cloud' });
  // With mutual TLS as well: both.
  const both = temporalSettings({ ...mtls(), TEMPORAL_API_KEY: 'k' });
  t.truthy(both.tls?.clientCertPair);
  t.is(both.apiKey, 'k');
});

test('a certificate without its key, or a key without its certificate, is refused', (t) => {
  const message = /TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together/;
  t.throws(() => temporalSettings({ TEMPORAL_TLS_CERT: files['client.pem'] }), { instanceOf: ConfigError, message });
  t.throws(() => temporalSettings({ TEMPORAL_TLS_KEY: files['client.key'] }), { instanceOf: ConfigError, message });
});

test('a file that cannot be read is named, with why', (t) => {
  const missing = path.join(dir, 'missing.pem');
  t.throws(() => temporalSettings({ TEMPORAL_TLS_CA: missing }), {
    instanceOf: ConfigError,
    message: `TEMPORAL_TLS_CA names a file this process cannot read: ${missing} (no such file)`,
  });
  t.throws(() => temporalSettings({ TEMPORAL_TLS_CA: dir }), {
    message: /TEMPORAL_TLS_CA names a file this process cannot read: .* \(a directory\)/,
  });
  // root reads a file whatever its mode: the check says so only to a process that cannot.
  if (process.getuid?.() !== 0)
    t.throws(() => temporalSettings({ TEMPORAL_TLS_CA: files.unreadable }), { message: /cannot read: .* \(permission denied\)/ });
});

test('a file that holds no certificate, or no key, is refused without repeating it', (t) => {
  const error = t.throws(() => temporalSettings({ TEMPORAL_TLS_CA: files.garbage }), { instanceOf: ConfigError });
  t.regex(error.message, /^TEMPORAL_TLS_CA must name a file of PEM certificates/);
  t.false(error.message.includes('not a certificate'));
  t.throws(() => temporalSettings({ TEMPORAL_TLS_CERT: files.garbage, TEMPORAL_TLS_KEY: files['client.key'] }), {
    message: /^TEMPORAL_TLS_CERT must name a file of PEM certificates/,
  });
  const keyError = t.throws(() => temporalSettings({ TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: files['client.pem'] }), {
    instanceOf: ConfigError,
  });
  t.regex(keyError.message, /^TEMPORAL_TLS_KEY must hold an unencrypted PEM private key/);
  // Not a line of the file it read (the certificate's body).
  const body = readFileSync(files['client.pem']!, 'utf8').split('\n')[1]!;
  t.false(keyError.message.includes(body));
});

test("another certificate's key, an expired certificate, a server's certificate: each refused for what it is", (t) => {
  t.throws(() => temporalSettings({ ...mtls(), TEMPORAL_TLS_KEY: files['other.key'] }), {
    message: "TEMPORAL_TLS_KEY is not the private key of TEMPORAL_TLS_CERT's certificate (the first in the file)",
  });
  t.throws(() => temporalSettings({ ...mtls(), TEMPORAL_TLS_CERT: files['expired.pem'], TEMPORAL_TLS_KEY: files['expired.key'] }), {
    message: /^TEMPORAL_TLS_CERT's certificate expired on \d{4}-/,
  });
  t.throws(() => temporalSettings({ ...mtls(), TEMPORAL_TLS_CERT: files['server-only.pem'], TEMPORAL_TLS_KEY: files['server-only.key'] }), {
    message: /not one for a client: its extended key usage lacks clientAuth/,
  });
});

test('an API key that is not one line of printable characters is refused without repeating it; a server name must be a host name', (t) => {
  for (const key of ['two words', 'line\nbreak', ' ']) {
    const error = t.throws(() => temporalSettings({ TEMPORAL_API_KEY: key }), { instanceOf: ConfigError });
    t.is(error.message, 'TEMPORAL_API_KEY must be one line of printable characters, without spaces');
  }
  t.throws(() => temporalSettings({ TEMPORAL_TLS_SERVER_NAME: 'https://x.example.com' }), {
    message: 'TEMPORAL_TLS_SERVER_NAME must be a host name, got "https://x.example.com"',
  });
});

test("the process's configuration carries them: every connection it makes takes them from there", (t) => {
  const config = loadConfig({ MONGODB_URL: 'mongodb://127.0.0.1:1/x', SECRET_KEY: '0'.repeat(64), TEMPORAL_NAMESPACE: 'prod', ...mtls() });
  t.is(config.temporal.namespace, 'prod');
  t.truthy(temporalConnectOptions(config.temporal).tls?.clientCertPair);
  t.throws(
    () => loadConfig({ MONGODB_URL: 'mongodb://127.0.0.1:1/x', SECRET_KEY: '0'.repeat(64), TEMPORAL_TLS_KEY: files['client.key'] }),
    {
      instanceOf: ConfigError,
    },
  );
});
