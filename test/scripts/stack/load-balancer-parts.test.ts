//! What the cluster's load balancer stands on, each alone: the certificate made on this machine
//! when none is configured (scripts/stack/local-tls.ts) and the DNS that lists the API replicas
//! to it (scripts/stack/discovery-dns.ts), asked by Node's own resolver. HAProxy with both is
//! proven by `npm run test:cluster` (test/cluster/topology.test.ts).
import { X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import test from 'ava';
import { startDiscoveryDns } from '../../../scripts/stack/discovery-dns.js';
import { ensureLocalTls } from '../../../scripts/stack/local-tls.js';
import { freePort } from '../../../scripts/stack/net.js';

test('the local certificate is signed by its own authority for localhost and 127.0.0.1, a client trusting that authority accepts it, and it is kept', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'local-tls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const made = await ensureLocalTls(dir);
  const pem = await readFile(made.pemFile, 'utf8');
  const ca = await readFile(made.caCertFile, 'utf8');
  const leaf = new X509Certificate(pem);
  const authority = new X509Certificate(ca);
  t.true(authority.ca);
  t.false(leaf.ca);
  t.true(leaf.verify(authority.publicKey), 'signed by the authority');
  t.is(leaf.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1');
  t.regex(pem, /-----BEGIN PRIVATE KEY-----/, 'the key follows the certificate, as HAProxy reads it');
  t.is((await stat(made.pemFile)).mode & 0o777, 0o600, 'the key is readable by its owner only');

  const server = tls.createServer({ cert: pem, key: pem }, (socket) => socket.end('hello'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const { port } = server.address() as { port: number };
  for (const servername of ['localhost', undefined]) {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername });
    await once(socket, 'secureConnect');
    t.true(socket.authorized, `trusted with ${servername ?? 'the address'}`);
    socket.destroy();
  }
  const refused = tls.connect({ host: '127.0.0.1', port, servername: 'localhost' });
  const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
  t.is(err.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'a client that does not trust the authority refuses it');

  const again = await ensureLocalTls(dir);
  t.is(await readFile(again.pemFile, 'utf8'), pem, 'a valid certificate is kept, not made again');
});

test('the discovery DNS lists each replica with its port under one SRV name, and answers its address', async (t) => {
  const replicas = [
    { name: 'api-1', host: '127.0.0.1', port: 40001 },
    { name: 'api-2', host: '127.0.0.1', port: 40002 },
  ];
  const dns = await startDiscoveryDns(await freePort(), replicas);
  t.teardown(() => dns.close());
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([dns.address]);
  const srv = await resolver.resolveSrv(dns.service);
  t.deepEqual(srv.map((r) => [r.name, r.port]).sort(), [
    ['api-1.cluster.internal', 40001],
    ['api-2.cluster.internal', 40002],
  ]);
  t.deepEqual(await resolver.resolve4('api-2.cluster.internal'), ['127.0.0.1']);
  const unknown = await resolver.resolve4('api-9.cluster.internal').catch((e: NodeJS.ErrnoException) => e.code);
  t.is(unknown, 'ENOTFOUND');
});
