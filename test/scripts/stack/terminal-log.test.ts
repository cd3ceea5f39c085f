import test from 'ava';
import { readableLogLine, readableLogs } from '../../../scripts/stack/terminal-log.js';

test('npm start renders log lines readable on a terminal, JSON when piped or in production', (t) => {
  t.true(readableLogs({}, { isTTY: true }));
  t.false(readableLogs({}, { isTTY: false }));
  t.false(readableLogs({}, {}));
  t.false(readableLogs({ NODE_ENV: 'production' }, { isTTY: true }));
  t.true(readableLogs({ NODE_ENV: 'development' }, { isTTY: true }));
});

test('a JSON log line becomes time, level, process, message and fields', (t) => {
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    pid: 12,
    hostname: 'h',
    name: 'api',
    msg: 'listening',
    port: 8080,
  });
  const shown = readableLogLine({ colorize: false })(line);
  t.regex(shown, /^\[\d\d:\d\d:\d\d\.006\] INFO \(api\): listening \{"port":8080\}$/);
  t.false(shown.includes('"pid"'));
});

test('an error is shown with its stack on the following lines', (t) => {
  const line = JSON.stringify({
    level: 50,
    time: 0,
    name: 'workers',
    msg: 'activity failed',
    err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at step (x.ts:1:2)' },
  });
  const shown = readableLogLine({ colorize: false })(line).split('\n');
  t.regex(shown[0]!, /ERROR \(workers\): activity failed/);
  t.true(shown.some((l) => l.trim() === 'at step (x.ts:1:2)'));
});

test('lines that are not JSON log lines pass unchanged', (t) => {
  const format = readableLogLine({ colorize: false });
  t.is(format('node:internal/modules/run_main:123'), 'node:internal/modules/run_main:123');
  t.is(format('{not json'), '{not json');
});
