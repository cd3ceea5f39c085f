// What every ava config of the service's own tests shares: TypeScript test files run by tsx in
// child processes (not worker threads: the stacks and browsers they start must end with them), the
// service's modules read from source (the `utility-tools-source` export condition).
export const TYPESCRIPT_TESTS = {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx', '--conditions=utility-tools-source'],
  workerThreads: false,
};
