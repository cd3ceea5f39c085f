// `npm run test:k8s` (scripts/test-k8s.mjs): deploy/kubernetes/ on a real control plane built on
// this machine (scripts/stack/control-plane.ts), one file, its steps in order.
export default {
  files: ['test/k8s/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx', '--conditions=utility-tools-source'],
  timeout: '5m',
  workerThreads: false,
  serial: true,
};
