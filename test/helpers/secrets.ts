//! Where a secret must never be: every log of the test stack and the service's database. A test
//! that made a secret pass through the service asks where it is, and expects nowhere.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { withServiceDb } from './db.js';
import { testEnv } from './env.js';

/**
 * The places that hold any of `secrets`: `log <file>` for the stack's logs, `collection <name>` for
 * `collections` of the service's database (every collection when not given), every document read.
 */
export async function placesHolding(secrets: string[], collections?: string[]): Promise<string[]> {
  const found: string[] = [];
  const holds = (text: string) => secrets.some((secret) => text.includes(secret));
  const logDir = testEnv.stackLogDir();
  for (const file of readdirSync(logDir)) if (holds(readFileSync(path.join(logDir, file), 'utf8'))) found.push(`log ${file}`);
  await withServiceDb(async (db) => {
    const names = collections ?? (await db.listCollections().toArray()).map((c) => c.name);
    for (const name of names) {
      for await (const doc of db.collection(name).find({})) {
        if (holds(JSON.stringify(doc))) {
          found.push(`collection ${name}`);
          break;
        }
      }
    }
  });
  return found;
}
