//! What one account's document sustains: reserve + commit pairs per second on a single hot
//! account, against the same pairs spread over as many accounts as there are callers, on a
//! SecantusDB of its own (no Temporal, no API). The ledger is single-document updates of the
//! account, so one account's calls are serialised by its document; this says where that bites.
import { connectMongo, ensureIndexes } from '../lib/mongo.js';
import { createLedger } from '../domain/ledger/index.js';
import { createAccounts } from '../domain/accounts/index.js';
import { measure, printTable, type Figures } from './measure.js';
import { cpuPerCall, cpuSnapshot } from './process-cpu.js';
import { withBenchDatabase } from './stack.js';

const PAIRS = Number(process.env.BENCH_CALLS ?? 2000);
const rows: Figures[] = [];
const cpu: Array<{ label: string; ms: number }> = [];

await withBenchDatabase('ledger', async (database) => {
  const mongo = await connectMongo(database.url);
  await ensureIndexes(mongo.db);
  const ledger = createLedger(mongo.db);
  const accounts = createAccounts(mongo.db);
  const dbProcess = [{ name: 'database', pid: database.pid }];
  try {
    for (const concurrency of [1, 8, 32]) {
      for (const spread of concurrency === 1 ? [false] : [false, true]) {
        const ids = await Promise.all(
          Array.from({ length: spread ? concurrency : 1 }, async () => (await accounts.open({ credits: PAIRS * 4 })).account._id),
        );
        const label = `reserve + commit, ${spread ? `${concurrency} accounts` : 'one account'}`;
        let before = cpuSnapshot(dbProcess);
        rows.push(
          await measure(
            label,
            async (i) => {
              if (i === 0) before = cpuSnapshot(dbProcess);
              const ref = {
                accountId: ids[Math.abs(i) % ids.length]!,
                requestId: `bench-${concurrency}-${spread}-${i}-${Math.random()}`,
                tool: 'hash-text',
                cost: 1,
              };
              const reserved = await ledger.reserve(ref);
              if (!reserved.ok) throw new Error('insufficient credits');
              await ledger.commit(ref);
            },
            { calls: PAIRS, concurrency },
          ),
        );
        cpu.push({
          label: `${label}, c=${concurrency}`,
          ms: cpuPerCall(before, cpuSnapshot(dbProcess), PAIRS).find((p) => p.process === 'database')!.msPerCall,
        });
      }
    }
  } finally {
    await mongo.close();
  }
});
printTable('The ledger on SecantusDB: reserve + commit pairs (calls/s is pairs per second)', rows);
console.log('\nDatabase CPU ms per pair');
console.table(cpu.map((c) => ({ what: c.label, 'database CPU ms': +c.ms.toFixed(2) })));
process.exit(0);
