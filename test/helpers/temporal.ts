//! A Temporal client of the test stack, for tests that read a workflow's history or run a schedule now.
import { Client, Connection } from '@temporalio/client';
import { testEnv } from './env.js';

/** Runs `fn` with a client of the stack's Temporal, then closes its connection. */
export async function withTemporalClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: testEnv.temporalAddress() });
  try {
    return await fn(new Client({ connection, namespace: testEnv.temporalNamespace() }));
  } finally {
    await connection.close();
  }
}
