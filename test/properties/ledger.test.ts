//! Properties of the credits ledger on the real database, over random sequences of grants (some
//! expiring), reserves, commits, refunds and the passing of time (each hour's expiries run): the
//! balance always equals what is left of the unexpired grants minus what calls hold, the charged
//! balance adds the holds back, neither is ever negative, a reserve succeeds exactly when the
//! balance covers it and takes from the grants that expire first, and what lapses is what the
//! usage ledger records as expired.
import test from 'ava';
import fc from 'fast-check';
import { propertyRuns } from './property-runs.js';
import { collections, connectMongo, type Mongo } from '../../lib/mongo.js';
import { createLedger, type Ledger } from '../../domain/ledger/ledger.js';
import { createAccounts } from '../../domain/accounts/accounts.js';
import { createGrants, type Grants } from '../../domain/ledger/grants.js';

let mongo: Mongo;
let ledger: Ledger;
let grants: Grants;
const RUNS = propertyRuns(40);
const HOUR = 3600_000;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/ledger_property_tests'));
  ledger = createLedger(mongo.db);
  grants = createGrants(mongo.db);
});
test.after.always(() => mongo?.close());

type Op =
  | { kind: 'grant'; amount: number; expiresInHours: number | null }
  | { kind: 'reserve'; cost: number }
  | { kind: 'commit' | 'refund'; pick: number }
  | { kind: 'advance'; hours: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('grant' as const),
    amount: fc.integer({ min: 1, max: 40 }),
    expiresInHours: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('reserve' as const), cost: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('reserve' as const), cost: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constantFrom('commit' as const, 'refund' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 3 }) }),
);

interface ModelGrant {
  /** Credits of it not yet charged or lapsed, held ones included. */
  left: number;
  expiresAt: number | null;
  expired: boolean;
}

test('over any sequence of grants, reserves, commits, refunds and expiries the ledger is exact', async (t) => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 30 }), fc.array(op, { maxLength: 30 }), async (welcome, ops) => {
      const accountId = (await createAccounts(mongo.db).open({ credits: welcome })).account._id;
      let now = Date.parse('2026-06-01T00:00:00Z') + run++ * 1000 * HOUR;
      const model = new Map<string, ModelGrant>();
      if (welcome > 0)
        model.set(Object.keys((await ledger.balanceOf(accountId)).lots!)[0]!, { left: welcome, expiresAt: null, expired: false });
      const holds = new Map<string, { cost: number; from: Record<string, number> }>();
      let lapsed = 0;
      let n = 0;

      const heldFrom = (g: string) => [...holds.values()].reduce((sum, h) => sum + (h.from[g] ?? 0), 0);
      const available = (g: string) => (model.get(g)!.expired ? 0 : model.get(g)!.left - heldFrom(g));
      const modelBalance = () => [...model.keys()].reduce((sum, g) => sum + available(g), 0);
      const expiryOf = (g: string) => model.get(g)!.expiresAt ?? Number.POSITIVE_INFINITY;

      for (const o of ops) {
        if (o.kind === 'grant') {
          const expiresAt = o.expiresInHours === null ? null : now + o.expiresInHours * HOUR;
          const { grant } = await grants.grant(
            { accountId, amount: o.amount, reason: 'purchase', expiresAt: expiresAt === null ? null : new Date(expiresAt) },
            now,
          );
          model.set(grant._id, { left: o.amount, expiresAt, expired: false });
        } else if (o.kind === 'reserve') {
          const before = modelBalance();
          const requestId = `${accountId}-r${n++}`;
          const result = await ledger.reserve({ accountId, requestId, tool: 'hash-text', cost: o.cost }, now);
          if (result.ok !== before >= o.cost) return false;
          if (result.ok) {
            const from = (await ledger.balanceOf(accountId)).holds[requestId]!.from!;
            if (Object.values(from).reduce((a, b) => a + b, 0) !== o.cost) return false;
            holds.set(requestId, { cost: o.cost, from });
            // Earliest expiry first: no grant expiring earlier than one it took from has credits left.
            const latest = Math.max(...Object.keys(from).map(expiryOf));
            for (const g of model.keys()) if (expiryOf(g) < latest && available(g) > 0) return false;
          }
        } else if (o.kind === 'commit' || o.kind === 'refund') {
          if (holds.size === 0) continue;
          const requestId = [...holds.keys()][o.pick % holds.size]!;
          const hold = holds.get(requestId)!;
          holds.delete(requestId);
          const call = { accountId, requestId, tool: 'hash-text', cost: hold.cost };
          if (o.kind === 'commit') {
            await ledger.commit(call, now);
            for (const [g, c] of Object.entries(hold.from)) model.get(g)!.left -= c;
          } else {
            await ledger.refund(call, now);
            for (const [g, c] of Object.entries(hold.from)) {
              if (model.get(g)!.expired) {
                model.get(g)!.left -= c;
                lapsed += c;
              }
            }
          }
        } else if (o.kind === 'advance') {
          now += o.hours * HOUR;
          for (const [g, m] of model) {
            if (!m.expired && m.expiresAt !== null && m.expiresAt <= now) {
              const gone = m.left - heldFrom(g);
              lapsed += gone;
              m.left -= gone;
              m.expired = true;
            }
          }
          while ((await grants.expireDue(now)).more);
        }

        const doc = await ledger.balanceOf(accountId);
        const lotsSum = Object.values(doc.lots!).reduce((sum, l) => sum + l.remaining, 0);
        const holdsSum = Object.values(doc.holds).reduce((sum, h) => sum + h.cost, 0);
        if (doc.balance < 0 || doc.chargedBalance < 0) return false;
        if (doc.balance !== modelBalance() || doc.balance !== lotsSum) return false;
        if (doc.chargedBalance !== doc.balance + holdsSum) return false;
        const recorded = await collections(mongo.db).ledger.find({ accountId, outcome: 'expired' }).toArray();
        if (recorded.reduce((sum, e) => sum + e.credits, 0) !== lapsed) return false;
      }
      return true;
    }),
    { numRuns: RUNS },
  );
  t.pass();
});
