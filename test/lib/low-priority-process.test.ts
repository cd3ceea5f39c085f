//! The low-priority child that hashes passwords (lib/low-priority-process.ts with
//! domain/identity/password-hashing-process.ts): every thread of it at LOW_PRIORITY_NICE in a
//! session of its own, none of the parent's environment, and a child killed mid-hash fails that
//! hash with an error (never a "no") and is replaced by the next call.
import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import argon2 from 'argon2';
import { LOW_PRIORITY_NICE, lowPriorityProcess, ProcessBusyError } from '../../lib/low-priority-process.js';
import { ARGON2_PARAMETERS } from '../../domain/identity/password-hashing.js';

const hashingModuleBeside = new URL('../../domain/identity/password-hashing.ts', import.meta.url).href;

/** Fields of /proc/<pid>/task/<tid>/stat after the command name: state is [0], session [3], nice [16]. */
const statFields = (path: string) =>
  readFileSync(path, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');

test('the child runs every thread at low priority, in its own session, with no environment', async (t) => {
  const child = lowPriorityProcess(hashingModuleBeside, 'password-hashing-process');
  t.teardown(() => child.stop());
  const hash = await child.call<string>('hash', 'a passphrase of some length', ARGON2_PARAMETERS);
  t.true(await argon2.verify(hash, 'a passphrase of some length'));
  t.true(await child.call<boolean>('verify', hash, 'a passphrase of some length'));
  t.false(await child.call<boolean>('verify', 'not a PHC string', 'a passphrase of some length'), 'a broken hash matches nothing');

  const pid = child.pid!;
  const threads = readdirSync(`/proc/${pid}/task`);
  t.true(threads.length > 1);
  for (const tid of threads) t.is(Number(statFields(`/proc/${pid}/task/${tid}/stat`)[16]), LOW_PRIORITY_NICE, `thread ${tid}`);
  t.is(Number(statFields(`/proc/${pid}/stat`)[3]), pid, 'leads its own session');
  if (existsSync(`/proc/${pid}/autogroup`))
    t.regex(readFileSync(`/proc/${pid}/autogroup`, 'utf8'), new RegExp(`nice ${LOW_PRIORITY_NICE}\\b`));
  const names = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((v) => v.split('=')[0]);
  t.deepEqual(
    names.filter((n) => !n!.startsWith('NODE_CHANNEL_')),
    [],
    "only its IPC channel's, none of the parent's (MONGODB_URL, keys)",
  );
});

test('a child killed while hashing fails that hash, and the next call starts another', async (t) => {
  const child = lowPriorityProcess(hashingModuleBeside, 'password-hashing-process');
  t.teardown(() => child.stop());
  await child.call('hash', 'warm up', ARGON2_PARAMETERS);
  const first = child.pid!;
  const slow = child.call<string>('hash', 'a long one', { ...ARGON2_PARAMETERS, timeCost: 50 });
  process.kill(first, 'SIGKILL');
  await t.throwsAsync(slow, { message: /password-hashing-process: the process exited \(SIGKILL\)/ });
  t.true(await child.call<boolean>('verify', await child.call<string>('hash', 'again', ARGON2_PARAMETERS), 'again'));
  t.not(child.pid, first);
});

test('with maxPending, a call past that many unanswered ones is refused at once, and taken again once they are answered', async (t) => {
  const child = lowPriorityProcess(hashingModuleBeside, 'password-hashing-process', { maxPending: 2 });
  t.teardown(() => child.stop());
  // Asked in one turn: none can be answered before the third is asked.
  const first = child.call<string>('hash', 'first passphrase here', ARGON2_PARAMETERS);
  const second = child.call<string>('hash', 'second passphrase here', ARGON2_PARAMETERS);
  const third = child.call<string>('hash', 'third passphrase here', ARGON2_PARAMETERS);
  await t.throwsAsync(third, { instanceOf: ProcessBusyError, message: /2 calls already waiting/ });
  t.true(await argon2.verify(await first, 'first passphrase here'));
  t.true(await argon2.verify(await second, 'second passphrase here'));
  t.true(await argon2.verify(await child.call<string>('hash', 'fourth passphrase', ARGON2_PARAMETERS), 'fourth passphrase'));
});
