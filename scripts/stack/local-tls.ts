//! The load balancer's certificate when the operator gives none (`TLS_CERT`): a certificate
//! authority of this machine's own and a certificate it signs for `localhost` and 127.0.0.1, made
//! with the `openssl` command (Node reads certificates but cannot issue them) into one folder and
//! kept there, so a client trusts the authority's file once. Made again when it is missing or
//! expires within 30 days.
//!
//! CLI: `node --import tsx scripts/stack/local-tls.ts <dir>` prints the two paths (compose mounts
//! the folder: docs/OPERATING.md, "TLS").
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import { EC_P256_KEY, openssl } from './openssl.js';

export interface LocalTls {
  /** HAProxy's `crt`: the certificate, then its private key (PEM). */
  pemFile: string;
  /** The authority that signed it: what a client trusts (`NODE_EXTRA_CA_CERTS`, `curl --cacert`). */
  caCertFile: string;
}

/** The names the certificate serves: the balancer is reached on this machine. */
export const LOCAL_TLS_NAMES = ['DNS:localhost', 'IP:127.0.0.1'];
const RENEW_BEFORE_S = 30 * 86_400;

async function stillValid(certFile: string, cwd: string): Promise<boolean> {
  if (!existsSync(certFile)) return false;
  return openssl(['x509', '-checkend', String(RENEW_BEFORE_S), '-noout', '-in', certFile], cwd).then(
    () => true,
    () => false,
  );
}

/** The kept certificate and authority in `dir`, made first when missing or about to expire. */
export async function ensureLocalTls(dir: string): Promise<LocalTls> {
  const files = { pemFile: path.join(dir, 'lb.pem'), caCertFile: path.join(dir, 'ca.crt') };
  if ((await stillValid(files.caCertFile, dir)) && (await stillValid(files.pemFile, dir))) return files;
  await mkdir(dir, { recursive: true });
  await openssl(
    [
      'req',
      '-x509',
      ...EC_P256_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '3650',
      '-subj',
      '/CN=Utility Tools local authority',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  await openssl(['req', ...EC_P256_KEY, '-keyout', 'lb.key', '-out', 'lb.csr', '-subj', '/CN=localhost'], dir);
  await writeFile(
    path.join(dir, 'lb.ext'),
    `subjectAltName=${LOCAL_TLS_NAMES.join(',')}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  // 397 days: the longest validity browsers accept for a server certificate.
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      'lb.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '397',
      '-extfile',
      'lb.ext',
      '-out',
      'lb.crt',
    ],
    dir,
  );
  const [cert, key] = await Promise.all([readFile(path.join(dir, 'lb.crt'), 'utf8'), readFile(path.join(dir, 'lb.key'), 'utf8')]);
  await writeFile(files.pemFile, cert + key, { mode: 0o600 });
  // The authority's key is not kept: nothing can sign with it later, and a renewal makes both again.
  await Promise.all(['lb.csr', 'lb.ext', 'ca.srl', 'ca.key', 'lb.key', 'lb.crt'].map((f) => rm(path.join(dir, f), { force: true })));
  return files;
}

/** This process trusts the authority too, besides the ones it had: its fetch reaches the balancer. */
export function trustAuthority(caCert: string): void {
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), caCert]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node --import tsx scripts/stack/local-tls.ts <dir>');
    process.exit(2);
  }
  const made = await ensureLocalTls(path.resolve(dir));
  console.log(`certificate and key: ${made.pemFile}\nauthority to trust:  ${made.caCertFile}`);
}
