// `npm run test:images` (scripts/test-images.mjs): the role images, built, and the service running
// as their containers; one file after the other (the last stops and replaces containers).
export default {
  files: ['test/images/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx', '--conditions=utility-tools-source'],
  timeout: '5m',
  workerThreads: false,
  serial: true,
  concurrency: 1,
};
