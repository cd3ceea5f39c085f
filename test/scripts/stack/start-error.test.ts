//! A part of the stack that fails to start is one line: which part, why, what to do (scripts/stack/start-error.ts).
import test from 'ava';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { assertPortFree } from '../../../scripts/stack/net.js';
import { StartError, startingPart } from '../../../scripts/stack/start-error.js';

test("a failed command is its own complaint, not execFile's 'Command failed' and Buffers", async (t) => {
  const err = await t.throwsAsync(
    startingPart('PostgreSQL', 'see postgres.log', async () => {
      execFileSync(
        'sh',
        [
          '-c',
          'echo starting; echo "initdb: error: could not access directory \\"/x\\": Permission denied" >&2; echo "hint: check it" >&2; exit 1',
        ],
        { stdio: 'pipe' },
      );
    }),
    { instanceOf: StartError },
  );
  t.is(err!.message, 'PostgreSQL did not start: initdb: error: could not access directory "/x": Permission denied; see postgres.log');
});

test('a process that exited while starting is its first line and the last line of its output', async (t) => {
  const err = await t.throwsAsync(
    startingPart('the Temporal server', 'see temporal.log', async () => {
      throw new Error(
        'Temporal server at 127.0.0.1:7233: temporal exited with code 1\nloading config\nUnable to start server: sql schema version compatibility check failed',
      );
    }),
  );
  t.is(
    err!.message,
    'the Temporal server did not start: Temporal server at 127.0.0.1:7233: temporal exited with code 1 (last output: Unable to start server: sql schema version compatibility check failed); see temporal.log',
  );
});

test('a busy port says which and how to move it', async (t) => {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as net.AddressInfo;
  const err = await t.throwsAsync(
    startingPart('the Temporal UI', 'see temporal-ui.log', () =>
      assertPortFree(port, 'Temporal UI', 'set TEMPORAL_UI_PORT to use another one'),
    ),
  );
  t.is(
    err!.message,
    `the Temporal UI did not start: port ${port} (Temporal UI) is already in use; set TEMPORAL_UI_PORT to use another one`,
  );
});
