//! A part of the test stack whose port another program bound first (the race between picking a
//! free port and binding it, on a busy machine) starts again on another port; any other failure
//! of its start is not retried.
import test from 'ava';
import net from 'node:net';
import { once } from 'node:events';
import { onAnotherPortIfTaken, freePort } from '../../../scripts/stack/net.js';

async function listen(port: number): Promise<net.Server> {
  const server = net.createServer().listen(port, '127.0.0.1');
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  return server;
}

test('a part whose port was taken starts on another, which later restarts use', async (t) => {
  const squatter = await listen(await freePort());
  const options = { port: (squatter.address() as net.AddressInfo).port };
  let cleaned = 0;
  const part = await onAnotherPortIfTaken(
    options,
    () => listen(options.port),
    () => cleaned++,
  );
  try {
    t.not(options.port, (squatter.address() as net.AddressInfo).port);
    t.is((part.address() as net.AddressInfo).port, options.port);
    t.is(cleaned, 1);
  } finally {
    part.close();
    squatter.close();
  }
});

test('a start that fails for another reason is not retried', async (t) => {
  let starts = 0;
  const options = { port: await freePort() };
  await t.throwsAsync(
    onAnotherPortIfTaken(
      options,
      async () => {
        starts++;
        throw new Error('the binary is missing');
      },
      () => {},
    ),
    { message: 'the binary is missing' },
  );
  t.is(starts, 1);
});

test("a part with two ports starts again with both new when either was taken: its clean picks the other's, awaited first", async (t) => {
  const squatter = await listen(await freePort());
  const taken = (squatter.address() as net.AddressInfo).port;
  const options = { port: await freePort() };
  const other = { port: taken };
  const starts: number[][] = [];
  const [main, second] = await onAnotherPortIfTaken(
    options,
    async () => {
      starts.push([options.port, other.port]);
      const first = await listen(options.port);
      try {
        return [first, await listen(other.port)] as const;
      } catch (err) {
        first.close();
        throw err;
      }
    },
    async () => {
      other.port = await freePort();
    },
  );
  try {
    t.is(starts.length, 2);
    t.not(other.port, taken);
    t.is((second.address() as net.AddressInfo).port, other.port);
    t.is((main.address() as net.AddressInfo).port, options.port);
  } finally {
    main.close();
    second.close();
    squatter.close();
  }
});
