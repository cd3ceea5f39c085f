//! Passwords given to bcrypt and argon2 tools leave no readable trace: not in the workflow
//! history (where they travel sealed, with a key destroyed when the call ends), not in any
//! database collection, not in the service logs.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { callTool, newAccount } from '../helpers/api.js';
import { placesHolding } from '../helpers/traces-of-secrets.js';

const ARGON2ID_OF_HUNTER = '$argon2id$v=19$m=4096,t=3,p=1$c29tZXNhbHRzb21lc2FsdA$dtUcOxL1jYlvpUgY7JB5JBuGZ5TpjfjkD6GuO/zuWYE';

test('no plaintext password in workflow history, database or logs after password tools', async (t) => {
  const account = await newAccount(50);
  const secret = `pw-${Date.now()}-Zq9`;
  const hashed = await callTool(account.apiKey, 'bcrypt-hash', { password: secret, workFactor: 4 });
  t.is(hashed.status, 200);
  const verified = await callTool(account.apiKey, 'bcrypt-verify', { password: secret, hash: hashed.body.hash });
  t.deepEqual(verified.body, { matches: true });
  const argon = await callTool(account.apiKey, 'argon2-verify', { password: secret, hash: ARGON2ID_OF_HUNTER });
  t.deepEqual(argon.body, { matches: false });
  const requestIds = [hashed, verified, argon].map((r) => r.headers.get('x-request-id')!);

  t.deepEqual(await placesHolding([secret], requestIds), []);
  const mongo = await MongoClient.connect(process.env.MONGODB_URL!);
  try {
    const db = mongo.db(new URL(process.env.MONGODB_URL!).pathname.slice(1) || 'utility_tools');
    t.is(await db.collection('call_keys').countDocuments({ _id: { $in: requestIds } as never }), 0, 'call keys are destroyed');
  } finally {
    await mongo.close();
  }
});
