//! What `npm run test:images` runs its suites against: the test stack's infrastructure as plain
//! processes (fixtures, Temporal, SecantusDB, MailDev) and the service itself as the five role
//! containers, on the host's network, each with the environment the test stack's apps get and the
//! blob volume a directory of the run. Workers start first (the API's readiness waits for Temporal
//! and the database, not for them).
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, onAnotherPortIfTaken } from '../stack/net.js';
import { startDatabase, startTemporal } from '../stack/services.js';
import type { Supervisor } from '../stack/supervisor.js';
import { fixturesEnv, startFixtures, startTestMailDev, type FixturesJson } from '../stack/test-stack.js';
import { type Role, type RoleContainer, type RoleContainerOptions, startRoleContainer } from './containers.js';

export interface BuiltImage {
  role: Role;
  image: string;
  seconds: number;
  bytes: number;
  layers: number;
}

export interface ImageStack {
  apiUrl: string;
  adminToken: string;
  fixtures: FixturesJson;
  mailApiUrl: string;
  mongodbUrl: string;
  temporalAddress: string;
  /** The containers as started, in start order. */
  containers: RoleContainer[];
  /** How each container was started (`startRoleContainer` takes it again to replace one). */
  containerOptions: Record<Role, RoleContainerOptions>;
}

const WORKERS: Role[] = ['worker-core', 'worker-cpu', 'worker-network', 'worker-browser'];

export async function startImageStack(
  supervisor: Supervisor,
  options: { root: string; runDir: string; tools: { temporal: string; secantusd: string }; images: BuiltImage[] },
): Promise<ImageStack> {
  const { root, runDir, tools } = options;
  const databaseOptions = { binary: tools.secantusd, port: await freePort(), dir: path.join(runDir, 'db') };
  const temporalOptions = { binary: tools.temporal, port: await freePort(), dbFile: path.join(runDir, 'temporal', 'temporal.db') };
  const [{ fixtures }, temporal, database, { mailDev, mailEnv }] = await Promise.all([
    startFixtures(supervisor, root, runDir),
    onAnotherPortIfTaken(
      temporalOptions,
      () => startTemporal(supervisor, temporalOptions),
      () => {},
    ),
    onAnotherPortIfTaken(
      databaseOptions,
      () => startDatabase(supervisor, databaseOptions),
      () => {},
    ),
    startTestMailDev(supervisor, root),
  ]);

  // The blob volume: a directory of the run, owned by the containers' user as a new named volume would be.
  const blobDir = path.join(runDir, 'blobs');
  mkdirSync(blobDir, { recursive: true });
  chownSync(blobDir, 1000, 1000);
  const adminToken = randomBytes(24).toString('base64url');
  const fromFixtures = fixturesEnv(fixtures, runDir) as Record<string, string>;
  // The CA bundle the fixtures' settings name is a file of the run: readable by the containers' user.
  chmodSync(fromFixtures.NODE_EXTRA_CA_CERTS!, 0o644);
  const shared: Record<string, string> = {
    MONGODB_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: adminToken,
    BLOB_STORE_URL: 'file:///data/blobs',
    HOME: '/tmp',
    ...fromFixtures,
    ...(mailEnv as Record<string, string>),
    LOG_LEVEL: 'info',
  };
  const apiPort = await freePort();
  const containerOptions = {} as Record<Role, RoleContainerOptions>;
  for (const role of [...WORKERS, 'api' as const]) {
    const image = options.images.find((i) => i.role === role)!.image;
    containerOptions[role] = {
      role,
      image,
      name: `utility-tools-${role}-${path.basename(runDir)}`.toLowerCase(),
      env: {
        ...shared,
        METRICS_PORT: String(await freePort()),
        METRICS_HOST: '127.0.0.1',
        ...(role === 'api' ? { PORT: String(apiPort) } : {}),
      },
      blobDir,
      readOnlyFiles: [fromFixtures.NODE_EXTRA_CA_CERTS!],
    };
  }
  writeFileSync(path.join(runDir, 'containers.json'), JSON.stringify(containerOptions, null, 2), { mode: 0o600 });
  const containers: RoleContainer[] = [];
  // Workers side by side, then the API.
  containers.push(...(await Promise.all(WORKERS.map((role) => startRoleContainer(containerOptions[role])))));
  containers.push(await startRoleContainer(containerOptions.api));
  return {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    adminToken,
    fixtures,
    mailApiUrl: mailDev.apiUrl,
    mongodbUrl: database.url,
    temporalAddress: temporal.address,
    containers,
    containerOptions,
  };
}
