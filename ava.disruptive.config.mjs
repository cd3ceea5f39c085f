// The disruptive phase of `npm test`: suites that restart or kill parts of the stack run alone,
// after the rest, one file at a time (scripts/test.mjs); so does the 10,000-event webhook burst,
// which runs a Temporal server and workers of its own and would take the machine from the files
// beside it.
export default {
  files: ['test/disruptive/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '5m',
  workerThreads: false,
  concurrency: 1,
};
