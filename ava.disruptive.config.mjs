// The disruptive phase of `npm test`: suites that restart or kill parts of the stack run alone,
// after the rest, one file at a time (scripts/test.mjs).
export default {
  files: ['test/disruptive/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '5m',
  workerThreads: false,
  concurrency: 1,
};
