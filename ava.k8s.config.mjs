// `npm run test:k8s` (scripts/test-k8s.mjs): deploy/kubernetes/ on a real control plane built on
// this machine (scripts/stack/control-plane.ts), first on kwok's simulated nodes, then on a real
// node (scripts/stack/k8s-node.ts), after its pod bridge alone: one file after the other, each its
// steps in order.
import { TYPESCRIPT_TESTS } from './ava.shared.mjs';

export default {
  files: ['test/k8s/bridge.test.ts', 'test/k8s/kubernetes.test.ts', 'test/k8s/node.test.ts'],
  ...TYPESCRIPT_TESTS,
  timeout: '10m',
  serial: true,
  concurrency: 1,
};
