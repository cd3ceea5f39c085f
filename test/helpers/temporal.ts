//! A Temporal client of the test stack, for tests that read a workflow's history or run a schedule now.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { temporalConnectOptions } from '../../lib/config-temporal.js';
import { testEnv } from './env.js';

/** A connection to the stack's Temporal, made as the service makes its own (TLS under test:cluster). */
export function connectTemporal(): Promise<Connection> {
  return Connection.connect(temporalConnectOptions(testEnv.temporal()));
}

/** A worker's connection to the stack's Temporal, for a test's own workers. */
export function connectTemporalWorker(): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectOptions(testEnv.temporal()));
}

/** Runs `fn` with a client of the stack's Temporal, then closes its connection. */
export async function withTemporalClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await connectTemporal();
  try {
    return await fn(new Client({ connection, namespace: testEnv.temporalNamespace() }));
  } finally {
    await connection.close();
  }
}

/** Every string and every byte payload (as UTF-8) of a workflow history, in one text: what a secret must not be in. */
export function historyText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(historyText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(historyText).join('\n');
  return '';
}

/** The history of the stack's workflow `workflowId`, as historyText gives it. */
export function workflowHistoryText(workflowId: string): Promise<string> {
  return withTemporalClient(async (client) => historyText(await client.workflow.getHandle(workflowId).fetchHistory()));
}
