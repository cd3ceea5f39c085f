// `npm run test:traces` (scripts/test.mjs --traces): the trace suites, read back from the Jaeger
// of the stack they run against. Kept out of `npm test`, which needs no trace backend.
import { TYPESCRIPT_TESTS } from './ava.shared.mjs';

export default {
  files: ['test/traces/**/*.test.ts'],
  ...TYPESCRIPT_TESTS,
  timeout: '5m',
};
