//! Direct reads of the test stack's database, for tests that check what is (not) stored.
import { MongoClient, type Db } from 'mongodb';
import { testEnv } from './env.js';

/** Runs `fn` with the service database of the stack under test, then closes the connection. */
export async function withServiceDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const url = testEnv.mongodbUrl();
  const mongo = await MongoClient.connect(url);
  try {
    return await fn(mongo.db(new URL(url).pathname.slice(1) || 'utility_tools'));
  } finally {
    await mongo.close();
  }
}
