//! The time-skipping Temporal test server (the pinned binary `npm test` hands over) with the
//! workers a workflow test file wants and a database of its own on the test stack's server.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type Worker, type WorkflowBundle } from '@temporalio/worker';
import { createLogger } from '../../lib/logger.js';
import { connectMongo, type Mongo } from '../../lib/mongo.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { testEnv } from './env.js';

const bundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * The service's workflow code as its workers load it (workers/workflow-bundle.ts), for
 * `Worker.create({ workflowBundle })`: from the bundle cache the stack's workers filled, so webpack
 * runs once per change of the workflow code rather than once per worker a test makes.
 * `interceptorModules`: the traced bundle's (lib/tracing.ts WORKFLOW_TRACING_MODULE).
 */
export function serviceWorkflowBundle(interceptorModules: string[] = []): Promise<WorkflowBundle> {
  const key = interceptorModules.join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = workflowBundle(createLogger({ name: 'workflow-tests', level: 'warn' }), { interceptorModules }).then(({ code }) => ({ code }));
    bundles.set(key, bundle);
  }
  return bundle;
}

export interface WorkflowTestBed {
  env: TestWorkflowEnvironment;
  mongo: Mongo;
  /** Shuts the workers down, then the server and the database connection. */
  close(): Promise<void>;
}

/**
 * Errors only, from the SDK's native side too: the test server lacks capabilities a real server
 * advertises, and core warns about them on every worker start. Once per test process.
 */
export function installQuietRuntime(): void {
  const logger = new DefaultLogger('ERROR');
  Runtime.install({ logger, telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
}

export async function startWorkflowTestBed(
  database: string,
  createWorkers: (env: TestWorkflowEnvironment, mongo: Mongo) => Promise<Worker[]>,
): Promise<WorkflowTestBed> {
  installQuietRuntime();
  const path = testEnv.temporalTestServerPath();
  const mongo = await connectMongo(testEnv.mongodbUrl().replace(/\/[^/]*$/, `/${database}`));
  let env: TestWorkflowEnvironment | undefined;
  try {
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
    const workers = await createWorkers(env, mongo);
    const running = Promise.all(workers.map((w) => w.run()));
    const started = env;
    return {
      env: started,
      mongo,
      async close() {
        for (const w of workers) w.shutdown();
        await running.catch(() => {});
        await started.teardown();
        await mongo.close();
      },
    };
  } catch (err) {
    await env?.teardown();
    await mongo.close();
    throw err;
  }
}
