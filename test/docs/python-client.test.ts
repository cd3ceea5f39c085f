//! docs/other-languages.md as written: its shell commands generate a Python client from the live
//! `/api/v1/openapi.json` with the pinned OpenAPI Generator (fetched from Maven Central by Maven,
//! cached in ~/.m2), install it into a venv of pinned dependencies, and its script calls two tools
//! and reads a typed error against the stack.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { apiUrl, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { samplesOf } from './markdown.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the Python client generated from the OpenAPI document calls the tools', async (t) => {
  t.timeout(15 * 60_000, 'fetching the generator and installing the venv the first time');
  const samples = samplesOf(readFileSync(path.join(ROOT, 'docs', 'other-languages.md'), 'utf8'));
  const shell = samples.filter((s) => s.lang === 'sh');
  const python = samples.filter((s) => s.lang === 'python');
  t.is(shell.length, 1);
  t.is(python.length, 1);

  const work = path.join(testEnv.outputDir(), 'python-client');
  mkdirSync(work, { recursive: true });
  const venv = path.join(work, 'venv');
  await run('python3', ['-m', 'venv', venv]);
  const quiet = ['--disable-pip-version-check', '--no-input', '-q'];
  await run(
    path.join(venv, 'bin', 'pip'),
    ['install', ...quiet, '--no-deps', '-r', path.join(ROOT, 'scripts', 'python-client-requirements.txt')],
    { timeout: 10 * 60_000 },
  );

  const env = {
    ...process.env,
    PATH: `${path.join(venv, 'bin')}:${process.env.PATH}`,
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    // Maven and the generator are short runs: the quick compiler alone and one GC thread cut
    // their CPU, which the suites beside this one use.
    JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
    UTILITY_TOOLS_URL: apiUrl(),
  };
  const generated = await run('bash', ['-euo', 'pipefail', '-c', shell[0]!.code], {
    cwd: work,
    env,
    timeout: 10 * 60_000,
    maxBuffer: 1 << 24,
  }).catch((err) => err);
  t.falsy(generated.code, `${generated.stdout ?? ''}\n${generated.stderr ?? ''}`);

  // Two credits: the hash and the QR code are charged, the screenshot (25) is refused.
  const account = await newAccount(2);
  writeFileSync(path.join(work, 'sample.py'), python[0]!.code);
  const { stdout } = await run(path.join(venv, 'bin', 'python'), ['sample.py'], {
    cwd: work,
    env: { ...env, UTILITY_TOOLS_KEY: account.apiKey },
  });
  t.deepEqual(stdout.trim().split('\n'), [
    'sha256 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    stdout.match(/^image\/png \d+ bytes$/m)?.[0] ?? 'image/png <n> bytes',
    '402 insufficient_credits 0 25',
  ]);
});
