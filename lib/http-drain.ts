//! Stopping an HTTP server without losing a request a client has already sent. Closing a keep-alive
//! connection the moment it goes idle races a client that is sending its next request on it: the
//! client sees the socket close instead of an answer, and may not send a POST again (a tool call
//! would be lost or, sent twice, run twice). So while draining, every answer closes its connection
//! (`Connection: close`), those in flight when it began too; a connection left idle closes on the
//! keep-alive timeout its client was told (`Keep-Alive: timeout=5`, which clients leave a margin
//! before); the server closes once no connection is left, or once it has answered nothing for
//! longer than that timeout.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Installs the draining behaviour on `server`; call the result to drain it and close it. */
export function drainOnClose(server: Server): () => Promise<void> {
  let draining = false;
  let lastAnswerAt = 0;
  const answering = new Set<ServerResponse>();
  const closeAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
    else res.shouldKeepAlive = false;
  };
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    answering.add(res);
    res.once('close', () => {
      answering.delete(res);
      lastAnswerAt = Date.now();
    });
    if (draining) closeAfter(res);
  });
  const openConnections = () => new Promise<number>((resolve) => server.getConnections((_, n) => resolve(n ?? 0)));
  return async () => {
    draining = true;
    lastAnswerAt = Date.now();
    for (const res of answering) closeAfter(res);
    // A connection that idles longer than the timeout its client was told has been closed by then.
    const quiet = () => answering.size === 0 && Date.now() - lastAnswerAt > server.keepAliveTimeout + 1000;
    while ((await openConnections()) > 0 && !quiet()) await sleep(100);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
