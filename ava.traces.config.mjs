// `npm run test:traces` (scripts/test.mjs --traces): the trace suites, read back from the Jaeger
// of the stack they run against. Kept out of `npm test`, which needs no trace backend.
export default {
  files: ['test/traces/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx', '--conditions=utility-tools-source'],
  timeout: '5m',
  workerThreads: false,
};
