//! Passwords given to bcrypt and argon2 tools leave no readable trace: not in the workflow
//! history (where they travel sealed, with a key destroyed when the call ends), not in any
//! database collection, not in the service logs.
import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { callTool, newAccount } from '../helpers/api.js';

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

  // Temporal history of each call, every event's payloads decoded as bytes.
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
    for (const id of requestIds) {
      const history = await client.workflow.getHandle(id).fetchHistory();
      const text = Buffer.from(JSON.stringify(history)).toString('latin1');
      t.false(JSON.stringify(history).includes(secret), `history of ${id} holds the password`);
      t.false(text.includes(Buffer.from(secret).toString('base64')), `history of ${id} holds the password in base64`);
      t.true(JSON.stringify(history).length > 0);
    }
  } finally {
    await connection.close();
  }

  // Every document of every collection of the service database.
  const mongo = await MongoClient.connect(process.env.MONGODB_URL!);
  try {
    const db = mongo.db(new URL(process.env.MONGODB_URL!).pathname.slice(1) || 'utility_tools');
    for (const { name } of await db.listCollections().toArray()) {
      const docs = await db.collection(name).find({}).toArray();
      const dump = JSON.stringify(docs);
      t.false(dump.includes(secret), `collection ${name} holds the password`);
      t.false(dump.includes(Buffer.from(secret).toString('base64')), `collection ${name} holds the password in base64`);
    }
    t.is(await db.collection('call_keys').countDocuments({ _id: { $in: requestIds } as never }), 0, 'call keys are destroyed');
  } finally {
    await mongo.close();
  }

  // The service logs the test runner keeps.
  const logDir = process.env.STACK_LOG_DIR;
  if (!logDir) throw new Error('STACK_LOG_DIR is not set: run through `npm test`');
  const logs = (await readdir(logDir)).filter((f) => f.endsWith('.log'));
  t.true(logs.length > 0);
  for (const file of logs) {
    t.false((await readFile(path.join(logDir, file), 'utf8')).includes(secret), `${file} holds the password`);
  }
});
