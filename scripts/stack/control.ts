//! A small HTTP control endpoint of the test stack, so tests can break and restore the stack
//! they run against (restart Temporal while a webhook delivery is pending, kill worker pools
//! for the chaos suite). Listens on 127.0.0.1 only; `npm test` passes its URL as STACK_CONTROL_URL.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Named actions, e.g. `restart/temporal`; each resolves once the stack is whole again. */
export type ControlActions = Record<string, () => Promise<unknown>>;

export async function startControlServer(actions: ControlActions): Promise<{ url: string; close(): Promise<void> }> {
  // One action at a time: two restarts interleaved would leave the stack in no known state.
  let queue: Promise<unknown> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/+/, '');
    const action = actions[name];
    if (req.method !== 'POST' || !action) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: `no action ${name}`, actions: Object.keys(actions) }));
      return;
    }
    const run = queue.then(action);
    queue = run.catch(() => {});
    run.then(
      (result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: result ?? null })),
      (err: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: err.message })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
