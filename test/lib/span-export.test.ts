//! Where spans go when the collector is down (lib/span-export.ts), with the real OTLP exporter and
//! batch processor against a port nothing listens on, then a collector of the test's own on that
//! same port: one warning when it stops answering, one line when it is back, none per batch; and a
//! stop that waits a bounded time and never throws, down or hanging. No stack needed.
import test from 'ava';
import http from 'node:http';
import { once } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { createLogger } from '../../lib/logger.js';
import {
  COLLECTOR_BACK,
  COLLECTOR_DOWN,
  SPANS_NOT_EXPORTED,
  collectorChange,
  exportFailureReason,
  spanExport,
} from '../../lib/span-export.js';
import type { UncheckedJson } from '../helpers/api.js';

/** The lines a logger wrote, parsed, at every level. */
function capture() {
  const lines: Record<string, UncheckedJson>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const count = (msg: string) => lines.filter((l) => l.msg === msg).length;
  return { lines, count, log: createLogger({ name: 'test', level: 'debug', destination: stream }) };
}

/** A collector on `port` (127.0.0.1): `answer` says what each post gets; every socket it took is kept, to be ended. */
async function collector(port: number, answer: 'ok' | 'never') {
  const sockets = new Set<Socket>();
  let posts = 0;
  const server = http.createServer((req, res) => {
    posts++;
    req.resume();
    if (answer === 'ok') req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  server.on('connection', (s) => sockets.add(s));
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    posts: () => posts,
    /** Closed: the port refuses again, and whatever hung up on it fails now. */
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port free now on 127.0.0.1, closed again: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The span pipeline of a process to `port`, and one call's span exported at once (as the batch timer would). */
function pipeline(port: number, flushDeadlineMs?: number) {
  const out = capture();
  const endpoint = `http://127.0.0.1:${port}/v1/traces`;
  const spans = spanExport(endpoint, out.log, flushDeadlineMs);
  const tracer = new BasicTracerProvider({ spanProcessors: [spans.spanProcessor] }).getTracer('test');
  return {
    ...out,
    endpoint,
    spans,
    end: (name: string) => tracer.startSpan(name).end(),
    async exportOne(name: string) {
      tracer.startSpan(name).end();
      // The batch processor's own flush rejects when the collector did not take the batch; in a
      // process that rejection goes to OpenTelemetry's error handler, which says nothing.
      await spans.spanProcessor.forceFlush().catch(() => {});
    },
  };
}

test('what an export changes: the first failure and the first success after it, nothing else', (t) => {
  t.is(collectorChange('unknown', false), 'down');
  t.is(collectorChange('up', false), 'down');
  t.is(collectorChange('down', false), undefined);
  t.is(collectorChange('down', true), 'back');
  t.is(collectorChange('unknown', true), undefined, 'a collector that answers from the start is not news');
  t.is(collectorChange('up', true), undefined);
});

test('why an export failed, in a few words', (t) => {
  t.is(exportFailureReason(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED' })), 'ECONNREFUSED');
  t.is(exportFailureReason(Object.assign(new Error('Bad Request'), { code: 400 })), 'HTTP 400 Bad Request');
  t.is(exportFailureReason(new Error('Request Timeout')), 'Request Timeout');
  t.is(exportFailureReason(undefined), 'export failed');
});

test('a collector down is one warning naming it, not one per export; back, one line; down again, one more', async (t) => {
  const port = await closedPort();
  const p = pipeline(port);
  for (let i = 0; i < 5; i++) await p.exportOne(`call ${i}`);
  t.is(p.count(SPANS_NOT_EXPORTED), 5, 'five batches were refused (debug, one each)');
  t.is(p.count(COLLECTOR_DOWN), 1);
  const warning = p.lines.find((l) => l.msg === COLLECTOR_DOWN)!;
  t.like(warning, { level: 40, endpoint: p.endpoint, reason: 'ECONNREFUSED' });
  t.false(JSON.stringify(warning).includes('    at '), 'no stack trace in the line');

  const up = await collector(port, 'ok');
  try {
    for (let i = 0; i < 3; i++) await p.exportOne(`up ${i}`);
    t.is(up.posts(), 3, 'the collector got each batch');
  } finally {
    await up.close();
  }
  t.is(p.count(COLLECTOR_BACK), 1);
  t.like(
    p.lines.find((l) => l.msg === COLLECTOR_BACK),
    { level: 30, endpoint: p.endpoint },
  );

  for (let i = 0; i < 3; i++) await p.exportOne(`down again ${i}`);
  t.deepEqual(
    p.lines.filter((l) => l.msg !== SPANS_NOT_EXPORTED).map((l) => l.msg),
    [COLLECTOR_DOWN, COLLECTOR_BACK, COLLECTOR_DOWN],
    'each change once, in order',
  );
  t.is(p.count(SPANS_NOT_EXPORTED), 8);
  await p.spans.shutdown();
});

test('a stop with spans buffered and the collector down resolves, the refusal one warning', async (t) => {
  const p = pipeline(await closedPort());
  for (let i = 0; i < 3; i++) p.end(`call ${i}`);
  await t.notThrowsAsync(p.spans.shutdown());
  t.is(p.count(SPANS_NOT_EXPORTED), 1, 'the last flush tried them');
  t.is(p.count(COLLECTOR_DOWN), 1);
  t.like(
    p.lines.find((l) => l.msg === COLLECTOR_DOWN),
    { endpoint: p.endpoint, reason: 'ECONNREFUSED' },
  );
});

test('a stop whose collector never answers ends at the deadline, with one warning saying so', async (t) => {
  const port = await closedPort();
  const hanging = await collector(port, 'never');
  try {
    const p = pipeline(port, 200);
    p.end('call');
    await t.notThrowsAsync(p.spans.shutdown());
    while (hanging.posts() === 0) await setTimeout(20); // the post may land after the deadline on a busy machine
    t.is(p.count(COLLECTOR_DOWN), 1);
    t.like(
      p.lines.find((l) => l.msg === COLLECTOR_DOWN),
      { endpoint: p.endpoint, reason: 'no answer within 200 ms' },
    );
  } finally {
    await hanging.close();
  }
});
