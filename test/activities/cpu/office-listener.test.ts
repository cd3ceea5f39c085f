//! How a LibreOffice listener is started, and the restart back-off of the converter.
import test from 'ava';
import { existsSync } from 'node:fs';
import { restartDelayMs } from '../../../activities/cpu/office-converter.js';
import { bridgeScriptPath, listenerCommand } from '../../../activities/cpu/office-listener.js';

const base = {
  python: '/usr/bin/python3',
  script: '/app/office-bridge.py',
  profileDir: '/tmp/p',
  pipeName: 'pipe-1',
  soffice: '/usr/bin/soffice',
};
const bridge = ['/usr/bin/python3', '/app/office-bridge.py', '--profile', '/tmp/p', '--pipe', 'pipe-1', '--soffice', '/usr/bin/soffice'];

test('in a namespace: its own network and PID namespaces, dying with its parent; a user namespace when not root', (t) => {
  t.deepEqual(listenerCommand({ ...base, isolation: 'namespace', isRoot: true }), [
    'unshare',
    '--net',
    '--pid',
    '--fork',
    '--kill-child',
    '--',
    ...bridge,
  ]);
  t.deepEqual(listenerCommand({ ...base, isolation: 'namespace', isRoot: false }), [
    'unshare',
    '--map-root-user',
    '--net',
    '--pid',
    '--fork',
    '--kill-child',
    '--',
    ...bridge,
  ]);
  t.deepEqual(listenerCommand({ ...base, isolation: 'none', isRoot: true }), bridge);
});

test('the bridge script is found from source and from a build in dist/', (t) => {
  t.true(existsSync(bridgeScriptPath()));
  t.true(existsSync(bridgeScriptPath(new URL('../../../dist/activities/cpu/office-listener.js', import.meta.url).href)));
});

test('failed starts are retried after 1 s, doubling up to 30 s', (t) => {
  t.deepEqual([1, 2, 3, 4, 5, 6, 7, 20].map(restartDelayMs), [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
});
