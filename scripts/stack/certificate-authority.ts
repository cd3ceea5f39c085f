//! A certificate authority and the certificates it signs, made with the `openssl` command (Node
//! reads certificates but cannot issue them): the tests' throwaway CA and leaves
//! (test/fixtures/tls-certs.ts) and the control plane `npm run test:k8s` starts
//! (control-plane.ts).
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EC_P256_KEY, openssl } from './openssl.js';

const DAY = 86_400_000;

export interface CertificateAuthority {
  certFile: string;
  keyFile: string;
  /** PEM of the CA certificate (for a client's `ca` option). */
  cert: string;
}

export interface KeyPair {
  /** PEM certificate and private key, ready for `tls.createServer({ cert, key })`. */
  cert: string;
  key: string;
}

export interface LeafOptions {
  /** DNS names and IP addresses; the first is also the subject CN. */
  names: string[];
  /** Default: one day ago. */
  notBefore?: Date;
  /** Default: 30 days from now. In the past for an expired certificate. */
  notAfter?: Date;
  /** What the certificate may be used for. Default: a server's. */
  usage?: ReadonlyArray<'serverAuth' | 'clientAuth'>;
}

/** Runs `work` in a fresh temporary directory, removed afterwards. */
export async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tls-certs-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const asn1Time = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');
export const subjectAltName = (names: string[]) => names.map((n) => (net.isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');

/** A new CA (EC P-256, valid 30 days) with its files in `dir`. */
export async function createCa(dir: string, name = 'Utility Tools Test CA'): Promise<CertificateAuthority> {
  await mkdir(dir, { recursive: true });
  const certFile = path.join(dir, 'ca.pem');
  const keyFile = path.join(dir, 'ca.key');
  await openssl(
    [
      'req',
      '-x509',
      '-new',
      ...EC_P256_KEY,
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '30',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return { certFile, keyFile, cert: await readFile(certFile, 'utf8') };
}

/**
 * A server certificate signed by `ca` for `names`, valid between any two dates (`openssl ca`
 * takes explicit dates, `openssl x509 -req` does not). Each call works in its own directory with a
 * random serial, so test processes sharing one CA never collide.
 */
export async function issueLeaf(ca: CertificateAuthority, options: LeafOptions): Promise<KeyPair> {
  const [first] = options.names;
  if (!first) throw new Error('a certificate needs at least one name');
  return inTempDir(async (dir) => {
    await writeFile(path.join(dir, 'index.txt'), '');
    await writeFile(path.join(dir, 'serial'), `${randomBytes(8).toString('hex')}\n`);
    await writeFile(
      path.join(dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = test_ca',
        '[test_ca]',
        `dir = ${dir}`,
        'database = $dir/index.txt',
        'serial = $dir/serial',
        'new_certs_dir = $dir',
        `certificate = ${ca.certFile}`,
        `private_key = ${ca.keyFile}`,
        'default_md = sha256',
        'policy = anything',
        'unique_subject = no',
        'copy_extensions = none',
        '[anything]',
        'commonName = supplied',
      ].join('\n') + '\n',
    );
    await writeFile(
      path.join(dir, 'leaf.ext'),
      `subjectAltName = ${subjectAltName(options.names)}\nbasicConstraints = CA:FALSE\nkeyUsage = digitalSignature\nextendedKeyUsage = ${(options.usage ?? ['serverAuth']).join(',')}\n`,
    );
    await openssl(['req', '-new', ...EC_P256_KEY, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${first}`], dir);
    const notBefore = options.notBefore ?? new Date(Date.now() - DAY);
    const notAfter = options.notAfter ?? new Date(Date.now() + 30 * DAY);
    await openssl(
      [
        'ca',
        '-batch',
        '-notext',
        '-config',
        'ca.cnf',
        '-in',
        'leaf.csr',
        '-out',
        'leaf.pem',
        '-extfile',
        'leaf.ext',
        '-startdate',
        asn1Time(notBefore),
        '-enddate',
        asn1Time(notAfter),
      ],
      dir,
    );
    return { cert: await readFile(path.join(dir, 'leaf.pem'), 'utf8'), key: await readFile(path.join(dir, 'leaf.key'), 'utf8') };
  });
}
