//! Builds the workflow bundle into its cache ahead of any start (`node dist/workers/prebuild-workflow-bundle.js`,
//! run by the image build), both as the workers load it untraced and with tracing's interceptors,
//! so a worker in the image finds it at once instead of spending seconds in webpack at each start
//! (and the image's node_modules, read-only to the workers' user, can still hold it).
import { createLogger } from '../lib/logger.js';
import { WORKFLOW_TRACING_MODULE } from '../lib/tracing.js';
import { workflowBundle } from './workflow-bundle.js';

const log = createLogger({ name: 'workflow-bundle' });
for (const interceptorModules of [[], [WORKFLOW_TRACING_MODULE]]) {
  const started = Date.now();
  const { fromCache } = await workflowBundle(log, { interceptorModules });
  log.info({ traced: interceptorModules.length > 0, fromCache, ms: Date.now() - started }, 'workflow bundle ready');
}
