//! Mutual TLS for the cluster's Temporal frontend, as a secured production Temporal asks it: an
//! authority of the cluster's own (certificate-authority.ts) and what it signs, as files in one
//! folder: the frontend's certificate, the certificate the server's own system worker presents to
//! it, and the service's client certificate (the API, the workers, the CLI that sets the namespace
//! up, the UI server, the tests). Made afresh at each start: a client certificate of a past run
//! is not one of this authority's.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createCa, issueLeaf, type CertificateAuthority, type KeyPair } from './certificate-authority.js';

/** The name the frontend's certificate carries besides 127.0.0.1, which clients check it against. */
export const TEMPORAL_SERVER_NAME = 'localhost';

export interface PemFiles {
  certFile: string;
  keyFile: string;
}

export interface TemporalTlsFiles {
  /** The authority's certificate: what the frontend's and every client's certificate chain to. */
  caFile: string;
  frontend: PemFiles;
  systemWorker: PemFiles;
  /** The service's client certificate. */
  client: PemFiles;
}

async function writePair(dir: string, name: string, pair: KeyPair): Promise<PemFiles> {
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  await writeFile(certFile, pair.cert);
  await writeFile(keyFile, pair.key, { mode: 0o600 });
  return { certFile, keyFile };
}

/** A new authority in `dir` (emptied first) and the three certificates it signs. */
export async function makeTemporalTls(dir: string): Promise<TemporalTlsFiles> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca: CertificateAuthority = await createCa(dir, 'Utility Tools Temporal CA');
  const [frontend, systemWorker, client] = await Promise.all([
    issueLeaf(ca, { names: [TEMPORAL_SERVER_NAME, '127.0.0.1'], usage: ['serverAuth'] }),
    issueLeaf(ca, { names: ['temporal-system-worker'], usage: ['clientAuth'] }),
    issueLeaf(ca, { names: ['utility-tools'], usage: ['clientAuth'] }),
  ]);
  return {
    caFile: ca.certFile,
    frontend: await writePair(dir, 'frontend', frontend),
    systemWorker: await writePair(dir, 'system-worker', systemWorker),
    client: await writePair(dir, 'client', client),
  };
}

/** deploy/temporal/utility-tools.yaml's variables (the temporalio/server image's names): the frontend requires a client certificate. */
export function temporalServerTlsEnv(files: TemporalTlsFiles): Record<string, string> {
  return {
    TEMPORAL_TLS_FRONTEND_CERT: files.frontend.certFile,
    TEMPORAL_TLS_FRONTEND_KEY: files.frontend.keyFile,
    TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
    TEMPORAL_TLS_CLIENT1_CA_CERT: files.caFile,
    TEMPORAL_TLS_SYSTEM_WORKER_CERT: files.systemWorker.certFile,
    TEMPORAL_TLS_SYSTEM_WORKER_KEY: files.systemWorker.keyFile,
    TEMPORAL_TLS_SERVER_CA_CERT: files.caFile,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: TEMPORAL_SERVER_NAME,
  };
}

/**
 * The service's own settings for it (docs/CONFIGURATION.md), as an operator would set them. The
 * address is 127.0.0.1: the name to check the frontend's certificate for is said, as a client
 * reaching a server through an address its certificate does not name says it.
 */
export function temporalClientTlsEnv(files: TemporalTlsFiles): Record<string, string> {
  return {
    TEMPORAL_TLS_CA: files.caFile,
    TEMPORAL_TLS_CERT: files.client.certFile,
    TEMPORAL_TLS_KEY: files.client.keyFile,
    TEMPORAL_TLS_SERVER_NAME: TEMPORAL_SERVER_NAME,
  };
}
