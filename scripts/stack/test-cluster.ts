//! The production-shaped stack of `npm run test:cluster`: the fixtures and a MailDev (the SMTP
//! server of its mail), then the cluster (scripts/stack/cluster.ts) on free ports under the run's
//! directory, pointed at them,
//! and the control endpoint with the cluster's fault actions (kill an API replica or a cpu
//! worker, restart PostgreSQL or the Temporal server).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startCluster, type Cluster, type ClusterTools } from './cluster.js';
import { freeClusterPorts } from './cluster-ports.js';
import { startControlServer } from './control.js';
import { throwawayEnv } from './apps.js';
import { fixturesEnv, startFixtures, startTestMailDev, type FixturesJson } from './test-stack.js';
import type { Supervisor } from './supervisor.js';

export interface TestCluster {
  apiUrl: string;
  adminToken: string;
  env: NodeJS.ProcessEnv;
  fixtures: FixturesJson;
  controlUrl: string;
  cluster: Cluster;
  /** MailDev's REST API, where the cluster's mail arrives (MAIL_API_URL for the tests). */
  mailApiUrl: string;
}

export async function startTestCluster(
  supervisor: Supervisor,
  options: { root: string; runDir: string; tools: ClusterTools; env?: NodeJS.ProcessEnv },
): Promise<TestCluster> {
  const [{ fixtures }, { mailDev, mailEnv }, ports] = await Promise.all([
    startFixtures(supervisor, options.root, options.runDir),
    startTestMailDev(supervisor, options.root),
    freeClusterPorts(),
  ]);
  // Where Temporal and the database are is filled in by startCluster; the rest as npm test's stack.
  const { env, adminToken } = throwawayEnv(
    { address: '', namespace: 'default' },
    { url: '' },
    { ...fixturesEnv(fixtures, options.runDir), ...mailEnv, ...options.env },
  );
  const cluster = await startCluster(supervisor, {
    root: options.root,
    dataDir: path.join(options.runDir, 'data'),
    throwaway: true,
    tools: options.tools,
    ports,
    env,
  });
  const control = await startControlServer(cluster.actions);
  // The tests reach the load balancer over HTTPS: they trust its authority besides the apps' ones.
  const trusted = path.join(options.runDir, 'test-ca-certs.pem');
  writeFileSync(trusted, [cluster.env.NODE_EXTRA_CA_CERTS, cluster.caCertFile].map((f) => (f ? readFileSync(f, 'utf8') : '')).join('\n'));
  return {
    apiUrl: cluster.apiUrl,
    adminToken,
    env: { ...cluster.env, NODE_EXTRA_CA_CERTS: trusted },
    fixtures,
    controlUrl: control.url,
    cluster,
    mailApiUrl: mailDev.apiUrl,
  };
}
