// `npm run test:images` (scripts/test-images.mjs): the role images, built, and the service running
// as their containers; one file after the other (the last stops and replaces containers).
import { TYPESCRIPT_TESTS } from './ava.shared.mjs';

export default {
  files: ['test/images/*.test.ts'],
  ...TYPESCRIPT_TESTS,
  timeout: '5m',
  serial: true,
  concurrency: 1,
};
