//! The identity rules that need no HTTP: sign-up off, the password policy, addresses and mailboxes.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { testEnv } from '../helpers/env.js';
import { createIdentity } from '../../domain/identity/index.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { mailboxOf, normalizeEmail } from '../../domain/identity/email-address.js';
import { passwordProblem, STRENGTH_MAX_PENDING } from '../../domain/identity/password-policy.js';
import { ServiceError } from '../../contracts/errors.js';

test('with SIGNUP=off a sign-up is 403 signup_closed and mails nothing', async (t) => {
  const mongo = await MongoClient.connect(testEnv.mongodbUrl());
  t.teardown(() => mongo.close());
  const db = mongo.db(new URL(testEnv.mongodbUrl()).pathname.slice(1));
  const sent: unknown[] = [];
  const identity = createIdentity({
    db,
    accounts: createAccounts(db),
    mailer: { send: async (m) => void sent.push(m) },
    settings: { baseUrl: 'http://localhost', signup: 'off', freeCredits: 100, timeouts: { idleMs: 1, maxMs: 1 } },
  });
  const err = await t.throwsAsync(identity.signup.signup({ email: 'a@b.example', password: 'plum orchard under snow' }));
  t.true(err instanceof ServiceError && err.code === 'signup_closed');
  t.deepEqual(sent, []);
});

test('addresses: one normal form; +tags share a mailbox', (t) => {
  t.is(normalizeEmail('  Ada.Lovelace@Example.COM '), 'ada.lovelace@example.com');
  t.is(normalizeEmail('no-at-sign'), null);
  t.is(normalizeEmail('two@@example.com'), null);
  t.is(normalizeEmail('a@b'), null);
  t.is(mailboxOf('ada+news@example.com'), 'ada@example.com');
  t.is(mailboxOf('ada@example.com'), 'ada@example.com');
  t.is(mailboxOf('+x@example.com'), '+x@example.com', 'a local part that is only a tag stays');
});

test("the password policy: length by characters, the common list, repetition and sequences, and the person's own words", async (t) => {
  t.regex((await passwordProblem('fourteen chars'))!, /at least 15/);
  t.is(await passwordProblem('oryx plinth vq7'), null, '15 characters');
  t.is(await passwordProblem('🍋🐙🎻🧊🚲🌵🎈🦉🍄⛵🧲🪁🥁🦔🌍'), null, '15 code points');
  t.regex((await passwordProblem('x'.repeat(257)))!, /at most 256/);
  t.regex((await passwordProblem('1qaz2wsx3edc4rfv'))!, /common/);
  t.regex((await passwordProblem('abcdefghijklmnop'))!, /sequence/);
  t.regex((await passwordProblem('ada.lovelace@example.com', { email: 'ada.lovelace@example.com' }))!, /your own/);
  t.is(
    await passwordProblem('Ada likes long walks on beaches', { email: 'ada@example.com', name: 'Ada' }),
    null,
    'containing a name is fine',
  );
});

test('guessable passwords are refused by the estimate, naming the pattern; four random words pass', async (t) => {
  const refused: [string, RegExp][] = [
    ['123456789012345', /sequence|common password/],
    ['qwertyuiopasdfgh', /a row of keys/],
    ['monkeymonkeymonkey', /a word repeated/],
    ['asdfghjklasdfghjkl', /a row of keys repeated/],
    ['iloveyouiloveyou1', /repeated/],
    ['basketball1998!!', /a dictionary word.*a year|a year/],
    ['Liverpool2023!!!', /a year/],
    ['P@ssw0rd20242024', /with symbols for letters/],
    ['sunshine2024sunshine', /a year/],
    ['zxcvbnmasdfghjkl', /a row of keys/],
    ['drowssapdrowssap', /repeated|backwards/],
    ['Superman19871987', /a common password/],
  ];
  for (const [password, pattern] of refused) {
    const problem = await passwordProblem(password, { email: 'ada.lovelace@example.com', name: 'Ada Lovelace' });
    t.regex(problem ?? '', /^is too easy to guess: /, password);
    t.regex(problem ?? '', pattern, password);
  }
  for (const password of [
    'gravel tundra pocket lantern',
    'mustard-oyster-violin-glacier',
    'quarry velvet nimbus tulip',
    'saddle ember kiwi fjord',
  ]) {
    t.is(await passwordProblem(password, { email: 'ada.lovelace@example.com', name: 'Ada Lovelace' }), null, password);
  }
});

test.serial(
  'estimates past STRENGTH_MAX_PENDING waiting at once are refused with 503 unavailable, not queued; the next is taken',
  async (t) => {
    const context = { email: 'ada.lovelace@example.com', name: 'Ada Lovelace' };
    // Asked in one turn, so none is answered before the last is asked: distinct, each past the quick checks.
    const asked = Array.from({ length: STRENGTH_MAX_PENDING + 1 }, (_, i) => passwordProblem(`gravel tundra pocket ${i} lantern`, context));
    const answers = await Promise.allSettled(asked);
    const refused = answers.filter((a) => a.status === 'rejected');
    t.is(refused.length, 1);
    const err = (refused[0] as PromiseRejectedResult).reason;
    t.true(err instanceof ServiceError && err.code === 'unavailable', String(err));
    t.true(answers.slice(0, STRENGTH_MAX_PENDING).every((a) => a.status === 'fulfilled' && a.value === null));
    t.is(await passwordProblem('saddle ember kiwi fjord', context), null, 'taken again once they are answered');
  },
);
