//! Which database failures are a moment's outage (503, retried) rather than a bug (500).
import { once } from 'node:events';
import net from 'node:net';
import test from 'ava';
import { MongoNetworkError } from 'mongodb';
import { isDatabaseUnreachable } from '../../lib/mongo.js';

/** A real EPIPE: a write to a socket whose other end has closed. */
async function epipe(): Promise<NodeJS.ErrnoException> {
  const server = net.createServer((socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  socket.on('error', () => {}); // reported to the write's callback below
  await once(socket, 'end');
  try {
    return await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      socket.write('x', (err) => (err ? resolve(err) : reject(new Error('the write did not fail'))));
    });
  } finally {
    socket.destroy();
    server.close();
  }
}

test('the EPIPE the driver lets through when it writes to a socket the server closed is an outage', async (t) => {
  const err = await epipe();
  t.is(err.code, 'EPIPE');
  // The frames of the one chaos saw (kill/database), below Node's own.
  err.stack = `${err.stack!.split('\n')[0]}\n    at Socket.writeAfterFIN [as write] (node:net:566:14)\n    at Connection.writeCommand (/srv/app/node_modules/mongodb/src/cmap/connection.ts:722:23)\n    at async Connection.sendWire (/srv/app/node_modules/mongodb/src/cmap/connection.ts:468:7)`;
  t.true(isDatabaseUnreachable(err));
});

test('an EPIPE from anywhere else stays what it is: not the database', async (t) => {
  t.false(isDatabaseUnreachable(await epipe()));
});

test("the driver's own network error is an outage, a plain error is not", (t) => {
  t.true(isDatabaseUnreachable(new MongoNetworkError('connection closed')));
  t.false(isDatabaseUnreachable(new Error('boom')));
  t.false(isDatabaseUnreachable(undefined));
});
