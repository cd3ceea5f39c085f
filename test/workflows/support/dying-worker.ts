//! A pool worker that dies (exits at once, as on SIGKILL) right after the first commit (or
//! reserve) of a call's step got through, before the workflow task running it can complete:
//! tool-call-task-retry.test.ts. Arguments: Temporal address, database URL, task queue, and the
//! step to die after (`commit`, the default, or `reserve`).
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createCallActivities } from '../../../activities/call-activities.js';
import { createCallStep } from '../../../activities/call-step.js';
import { createCallKeys } from '../../../domain/calls/keys.js';
import { createLedger } from '../../../domain/ledger/ledger.js';
import type { CallRef } from '../../../contracts/call.js';
import { connectMongo } from '../../../lib/mongo.js';
import { createLogger } from '../../../lib/logger.js';
import { workflowBundle } from '../../../workers/workflow-bundle.js';

const [address, mongodbUrl, taskQueue, dieAfter = 'commit'] = process.argv.slice(2) as [string, string, string, ('commit' | 'reserve')?];
// Errors only, as the test bed's workers: the bundler's listing would fill the test's output.
Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
});
const mongo = await connectMongo(mongodbUrl);
const handlers = { answers: async () => ({ fine: true }) };
const ledger = createLedger(mongo.db);
const dying = {
  // biome-ignore lint/nursery/noMisusedPromises: the ledger is an object of methods, not a promise (Biome 2.6 infers its type from an inner async function)
  ...ledger,
  [dieAfter]: async (call: CallRef) => {
    await ledger[dieAfter](call);
    process.exit(70);
  },
};
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address }),
  taskQueue,
  // The cached bundle the service's workers use: this process must reach its commit quickly.
  workflowBundle: { code: (await workflowBundle(createLogger({ name: 'dying-worker', level: 'warn' }))).code },
  activities: {
    ...createCallActivities(mongo.db, handlers),
    ...createCallStep({ handlers, ledger: dying, callKeys: createCallKeys(mongo.db) }),
  },
});
await worker.run();
