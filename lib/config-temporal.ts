//! Where the service's Temporal is and how to reach it: the frontend's address and namespace, TLS
//! (the CA its certificate is checked against, a client certificate and key for mutual TLS, the
//! name its certificate carries) and an API key, read and checked once from TEMPORAL_*; and the
//! options every connection to it is made with (API, workers, the stack's scripts, tests).
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Env } from './config-values.js';

/** TLS to the frontend, in the SDK's own terms (`TLSConfig` of `@temporalio/client` and `/worker`). */
export interface TemporalTls {
  /** PEM of the CA (or CAs) the frontend's certificate must chain to. `TEMPORAL_TLS_CA`; unset: the system's trusted CAs. */
  serverRootCACertificate?: Buffer;
  /** The client certificate (chain) and its private key, for mutual TLS. `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY`. */
  clientCertPair?: { crt: Buffer; key: Buffer };
  /** The name the frontend's certificate must carry, when it is not the address's host. `TEMPORAL_TLS_SERVER_NAME`. */
  serverNameOverride?: string;
}

export interface TemporalSettings {
  /** The frontend, `host:port`. `TEMPORAL_ADDRESS`, default 127.0.0.1:7233. */
  address: string;
  /** `TEMPORAL_NAMESPACE`, default `default`. */
  namespace: string;
  /** TLS, on when any TEMPORAL_TLS_* or TEMPORAL_API_KEY is set; undefined: plain TCP. */
  tls?: TemporalTls;
  /** Sent as `Authorization: Bearer` on every call (Temporal Cloud's API keys). `TEMPORAL_API_KEY`. Never logged. */
  apiKey?: string;
}

/** Extended key usage `clientAuth`: what a server that asks for a client certificate checks. */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** The file a variable names, read; a message names the variable and the path, never the content. */
function readNamedFile(env: Env, name: string): Buffer {
  const file = env[name]!;
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : code;
    throw new ConfigError(`${name} names a file this process cannot read: ${file} (${why})`);
  }
}

/** Every certificate of a PEM bundle, parsed; a file without one is a mistake said at start. */
function certificatesOf(env: Env, name: string, pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = blocks.flatMap((block) => {
    try {
      return [new X509Certificate(block)];
    } catch {
      return [];
    }
  });
  if (certs.length === 0 || certs.length < blocks.length)
    throw new ConfigError(
      `${name} must name a file of PEM certificates (-----BEGIN CERTIFICATE-----), each one whole: ${env[name]} is not`,
    );
  return certs;
}

/** The client certificate and its key, checked to belong together and to be usable today for a client. */
function clientCertPair(env: Env, now: Date): TemporalTls['clientCertPair'] {
  const crt = readNamedFile(env, 'TEMPORAL_TLS_CERT');
  const key = readNamedFile(env, 'TEMPORAL_TLS_KEY');
  const [leaf] = certificatesOf(env, 'TEMPORAL_TLS_CERT', crt);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError('TEMPORAL_TLS_KEY must hold an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----, or an EC or RSA one)');
  }
  if (!leaf!.checkPrivateKey(privateKey))
    throw new ConfigError("TEMPORAL_TLS_KEY is not the private key of TEMPORAL_TLS_CERT's certificate (the first in the file)");
  if (leaf!.validToDate < now) throw new ConfigError(`TEMPORAL_TLS_CERT's certificate expired on ${leaf!.validToDate.toISOString()}`);
  if (leaf!.validFromDate > now)
    throw new ConfigError(`TEMPORAL_TLS_CERT's certificate is not valid before ${leaf!.validFromDate.toISOString()}`);
  if (leaf!.keyUsage && !leaf!.keyUsage.includes(CLIENT_AUTH))
    throw new ConfigError("TEMPORAL_TLS_CERT's certificate is not one for a client: its extended key usage lacks clientAuth");
  return { crt, key };
}

function tlsSettings(env: Env, now: Date): TemporalTls | undefined {
  const ca = env.TEMPORAL_TLS_CA;
  const cert = env.TEMPORAL_TLS_CERT;
  const serverName = env.TEMPORAL_TLS_SERVER_NAME;
  if (!cert !== !env.TEMPORAL_TLS_KEY)
    throw new ConfigError(
      'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together: the client certificate and its key, for mutual TLS',
    );
  if (serverName && !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(serverName))
    throw new ConfigError(`TEMPORAL_TLS_SERVER_NAME must be a host name, got "${serverName}"`);
  if (!ca && !cert && !serverName && !env.TEMPORAL_API_KEY) return undefined;
  const tls: TemporalTls = {};
  if (ca) {
    const pem = readNamedFile(env, 'TEMPORAL_TLS_CA');
    certificatesOf(env, 'TEMPORAL_TLS_CA', pem);
    tls.serverRootCACertificate = pem;
  }
  if (cert) tls.clientCertPair = clientCertPair(env, now);
  if (serverName) tls.serverNameOverride = serverName;
  return tls;
}

/**
 * TEMPORAL_* checked: a certificate without its key, a file that cannot be read or holds no PEM, a
 * key of another certificate, an expired one, an API key that is not one line: each a ConfigError
 * naming the variable (never a key's or a file's content).
 */
export function temporalSettings(env: Env = process.env, now = new Date()): TemporalSettings {
  const apiKey = env.TEMPORAL_API_KEY || undefined;
  if (apiKey !== undefined && !/^[\x21-\x7e]+$/.test(apiKey))
    throw new ConfigError('TEMPORAL_API_KEY must be one line of printable characters, without spaces');
  const tls = tlsSettings(env, now);
  return {
    address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    ...(tls && { tls }),
    ...(apiKey && { apiKey }),
  };
}

/** What `Connection.connect` and `NativeConnection.connect` take to reach the frontend as the settings say. */
export function temporalConnectOptions(settings: Pick<TemporalSettings, 'address' | 'tls' | 'apiKey'>): {
  address: string;
  tls?: TemporalTls;
  apiKey?: string;
} {
  return {
    address: settings.address,
    ...(settings.tls && { tls: settings.tls }),
    ...(settings.apiKey && { apiKey: settings.apiKey }),
  };
}
