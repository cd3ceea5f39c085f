//! The local stack as one import for scripts/start.mjs, scripts/start-cluster.mjs and scripts/test.mjs.
export { Supervisor, ManagedProcess, type ProcessSpec, type ExitInfo } from './supervisor.js';
export { freePort, assertPortFree, onAnotherPortIfTaken, waitUntil, waitForHttp } from './net.js';
export { startTemporal, waitForTemporal, startDatabase, waitForMongo, redactUrl, TEMPORAL_DYNAMIC_CONFIG } from './services.js';
export { temporalSettings } from '../../lib/config-temporal.js';
export { localBlobStore, startApps, startWorkers, throwawayEnv } from './apps.js';
export { startControlServer, type ControlActions } from './control.js';
export { startTestStack, type TestStack, type TestStackOptions } from './test-stack.js';
export { statusCoverage, formatCoverage } from './status-coverage.js';
export { startCluster, type Cluster, type ClusterTools } from './cluster.js';
export { freeClusterPorts, API_REPLICAS, WORKER_PROCESSES, type ClusterPorts } from './cluster-ports.js';
export { startFixtures, fixturesEnv, startTestMailDev } from './test-stack.js';
export { startTestCluster, type TestCluster } from './test-cluster.js';
export { StartError, reasonOf } from './start-error.js';
export { superviseLocalStart, keptSecret, type LocalStart } from './local-start.js';
export { startJaeger, startLocalJaeger, tracingEnv, LOCAL_JAEGER_PORTS, type JaegerPorts, type RunningJaeger } from './jaeger.js';
export { terminalLogFormat } from './terminal-log.js';
export { startSummary, localOperatorPorts, LOCAL_METRICS_PORT, type StartFacts } from './start-summary.js';
export { startStripeMock, type RunningStripeMock } from './stripe-mock.js';
export {
  startMailDev,
  startLocalMail,
  localMailEnv,
  mailDevBinary,
  LOCAL_MAILDEV_PORTS,
  type MailDevOptions,
  type RunningMailDev,
  type LocalMail,
} from './maildev.js';
