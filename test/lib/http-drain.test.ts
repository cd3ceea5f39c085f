//! Draining an HTTP server: a request a client sends on a kept-alive connection after the drain
//! began is answered (and told to close), never met by a closed socket; the drain waits for answers
//! in flight and for idle connections to time out as their clients were told.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import test from 'ava';
import { drainOnClose } from '../../lib/http-drain.js';

async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  const drain = drainOnClose(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, drain, port: (server.address() as net.AddressInfo).port };
}

/** A raw keep-alive client: sends a GET on its one socket and reads one whole answer (headers and a short body). */
function rawClient(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (buffer += chunk));
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  return {
    socket,
    isClosed: () => closed,
    async get(): Promise<string> {
      buffer = '';
      socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
      while (!/\r\n\r\n[\s\S]*ok$/.test(buffer)) {
        if (closed) return buffer;
        await Promise.race([once(socket, 'data'), once(socket, 'close')]);
      }
      return buffer;
    },
  };
}

test('a request sent on a kept-alive connection after the drain began is answered, told to close, then the server closes', async (t) => {
  const { server, drain, port } = await serve((_req, res) => res.end('ok'));
  const client = rawClient(port);
  const first = await client.get();
  t.regex(first, /^HTTP\/1\.1 200/);
  t.regex(first, /connection: keep-alive/i);
  const drained = drain();
  const second = await client.get();
  t.regex(second, /^HTTP\/1\.1 200/, 'answered, not met by a closed socket');
  t.regex(second, /connection: close/i);
  await drained;
  t.true(client.isClosed());
  t.false(server.listening);
});

test('the drain waits for an answer in flight, and that answer arrives whole', async (t) => {
  let release!: () => void;
  let received!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const arrived = new Promise<void>((resolve) => (received = resolve));
  const { server, drain, port } = await serve(async (_req, res) => {
    received();
    await held;
    res.end('ok');
  });
  const client = rawClient(port);
  const answer = client.get();
  await arrived;
  let answered = false;
  const drained = drain().then(() => answered);
  release();
  t.regex(await answer, /^HTTP\/1\.1 200[\s\S]*connection: close[\s\S]*ok$/i);
  answered = true;
  t.true(await drained, 'closed only after the answer');
  t.false(server.listening);
});

test('an idle kept-alive connection is left to its keep-alive timeout, and the drain ends once it has closed', async (t) => {
  const { server, drain, port } = await serve((_req, res) => res.end('ok'));
  server.keepAliveTimeout = 200;
  const client = rawClient(port);
  t.regex(await client.get(), /^HTTP\/1\.1 200/);
  const closed = once(client.socket, 'close');
  await drain();
  await closed;
  t.false(server.listening);
});
