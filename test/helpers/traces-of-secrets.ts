//! Where a secret could be left behind by the stack `npm test` started: the workflow history of the
//! calls named, every document of every collection of the service database, and the service logs.
//! The answer names each place that holds one (as it is, or in base64); a test asserts it is empty.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { connectTemporal } from './temporal.js';

const forms = (secret: string) => [secret, Buffer.from(secret).toString('base64')];

function holding(place: string, text: string, secrets: string[]): string[] {
  return secrets.flatMap((secret, i) =>
    forms(secret)
      .filter((form) => text.includes(form))
      .map(() => `${place} holds secret #${i}`),
  );
}

/** Every place of the stack that holds one of `secrets`; the histories read are those of the workflows `workflowIds`. */
export async function placesHolding(secrets: string[], workflowIds: string[]): Promise<string[]> {
  const found: string[] = [];
  const connection = await connectTemporal();
  try {
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
    for (const id of workflowIds) {
      const history = JSON.stringify(await client.workflow.getHandle(id).fetchHistory());
      if (!history.length) found.push(`history of ${id} is empty`);
      found.push(...holding(`history of ${id}`, history, secrets));
    }
  } finally {
    await connection.close();
  }
  const mongo = await MongoClient.connect(process.env.MONGODB_URL!);
  try {
    const db = mongo.db(new URL(process.env.MONGODB_URL!).pathname.slice(1) || 'utility_tools');
    for (const { name } of await db.listCollections().toArray())
      found.push(...holding(`collection ${name}`, JSON.stringify(await db.collection(name).find({}).toArray()), secrets));
  } finally {
    await mongo.close();
  }
  const logDir = process.env.STACK_LOG_DIR;
  if (!logDir) throw new Error('STACK_LOG_DIR is not set: run through `npm test`');
  const logs = (await readdir(logDir)).filter((f) => f.endsWith('.log'));
  if (!logs.length) found.push('no service log to read');
  for (const file of logs) found.push(...holding(file, await readFile(path.join(logDir, file), 'utf8'), secrets));
  return found;
}
