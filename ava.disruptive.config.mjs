// The disruptive phase of `npm test`: suites that restart or kill parts of the stack, or load it
// so hard that the files beside them would measure it, run after the rest (scripts/test.mjs), in
// the steps below.

/**
 * The phase's steps, one after another; the files of one step run side by side. A file that stops
 * or kills a part of the shared stack has beside it only files that never use that stack; files
 * that only load it share a step when neither judges the other's effects. Every file of
 * test/disruptive/ is in exactly one step (test/scripts/disruptive-steps.test.ts).
 */
export const STEPS = [
  // Chaos kills the stack's workers, Temporal and database. The burst runs a Temporal server,
  // workers and a database of its own, and the memory curves are arithmetic: neither uses the stack.
  ['test/disruptive/chaos.test.ts', 'test/disruptive/webhook-endpoint-burst.test.ts', 'test/disruptive/memory-curve.test.ts'],
  // The bombs saturate the browser and cpu pools up to their deadlines; the fuzzing leaves those
  // tools out, keeps to its rate, and judges answers, not their pace.
  ['test/disruptive/cost-bombs.test.ts', 'test/disruptive/fuzz.test.ts'],
  // Judges every stack process's memory and the 5xx it answers: nothing else may call it.
  ['test/disruptive/load.test.ts'],
  // Each stops a part of the stack (a pool, the database, Temporal) and starts it again.
  ['test/disruptive/outages.test.ts'],
  ['test/disruptive/webhook-temporal-restart.test.ts'],
];

export default {
  files: ['test/disruptive/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '5m',
  workerThreads: false,
  // scripts/test.mjs names each step's files and runs them all at once.
  concurrency: 1,
};
