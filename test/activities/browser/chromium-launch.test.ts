//! Chromium keeps its own sandbox unless it runs as root (where it refuses to start with it) or the
//! operator turned it off with CHROMIUM_SANDBOX, for a pod where the container is the sandbox.
import test from 'ava';
import { chromiumArgs } from '../../../activities/browser/chromium-launch.js';
import { ConfigError, loadConfig } from '../../../lib/config.js';

const args = (sandbox: boolean, runningAsRoot: boolean) => chromiumArgs({ fallbackProxy: 'http://127.0.0.1:1', sandbox, runningAsRoot });

test('the sandbox stays on for an unprivileged user unless CHROMIUM_SANDBOX turns it off', (t) => {
  t.false(args(true, false).includes('--no-sandbox'));
  t.true(args(false, false).includes('--no-sandbox'));
  t.true(args(true, true).includes('--no-sandbox'), 'Chromium refuses its sandbox as root');
});

test('CHROMIUM_SANDBOX is true by default, takes true/false, and refuses anything else', (t) => {
  const env = { MONGODB_URL: 'mongodb://127.0.0.1:1/x', SECRET_KEY: 'a'.repeat(64) };
  t.true(loadConfig(env).chromiumSandbox);
  t.false(loadConfig({ ...env, CHROMIUM_SANDBOX: 'false' }).chromiumSandbox);
  t.true(loadConfig({ ...env, CHROMIUM_SANDBOX: 'true' }).chromiumSandbox);
  const err = t.throws(() => loadConfig({ ...env, CHROMIUM_SANDBOX: 'sometimes' }), { instanceOf: ConfigError });
  t.regex(err.message, /CHROMIUM_SANDBOX/);
});
