// `npm run test:cluster` (scripts/test.mjs --cluster): the acceptance of the whole service through
// the production-shaped stack's load balancer, then, alone, the faults of that topology.
import { TYPESCRIPT_TESTS } from './ava.shared.mjs';

/** Every tool, the account and operator APIs and webhooks: the suites npm test runs, through the load balancer. */
export const ACCEPTANCE = [
  'test/tools/*.test.ts',
  'test/api/account.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/endpoints.test.ts',
  'test/webhooks/failures.test.ts',
  'test/cluster/topology.test.ts',
  'test/cluster/temporal-tls.test.ts',
  'test/cluster/replicas.test.ts',
  'test/cluster/people.test.ts',
  'test/cluster/agents.test.ts',
];
/** Run after the acceptance, one file at a time: they kill and restart parts of the cluster. */
export const FAULTS = ['test/cluster/faults.test.ts'];

export default {
  files: [...ACCEPTANCE, ...FAULTS],
  ...TYPESCRIPT_TESTS,
  timeout: '5m',
};
