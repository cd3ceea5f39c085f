//! The status-coverage gate of `npm test` (scripts/stack/status-coverage.ts): every status the
//! OpenAPI document lists has a test that owns it, and that test exists under its title; the gate
//! judges a partial run only by the owners it ran.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { buildOpenApi } from '../../../api/openapi.js';
import { publishedCatalogueSchemas } from '../../../domain/tools/schemas.js';
import { STATUS_OWNERS, UNPRODUCIBLE, documentedStatuses, judgeCoverage, ownersInRun } from '../../../scripts/stack/status-coverage.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const documented = documentedStatuses(buildOpenApi({ baseUrl: 'https://api.example.test', schemas: publishedCatalogueSchemas() }) as never);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('every documented status has a test that owns it, or a reason why none can', (t) => {
  const orphans = [...documented.keys()].filter((status) => !STATUS_OWNERS[status] && !(status in UNPRODUCIBLE));
  t.deepEqual(orphans, [], 'add the test that produces each to STATUS_OWNERS');
  const stale = Object.keys(STATUS_OWNERS).filter((status) => !documented.has(status));
  t.deepEqual(stale, [], 'owners of statuses the document no longer lists');
});

test('each owner is a test of that title in that file, outside the suites that produce statuses by chance', (t) => {
  for (const [status, owner] of Object.entries(STATUS_OWNERS)) {
    const file = path.join(root, owner.file);
    t.true(existsSync(file), `${status}: ${owner.file} exists`);
    const source = readFileSync(file, 'utf8');
    const declared = new RegExp(`\\btest(?:\\.serial)?\\(\\s*(['"\`])${escapeRegExp(owner.title)}\\1`);
    t.regex(source, declared, `${status}: ${owner.file} has a test titled "${owner.title}"`);
    t.notRegex(
      owner.file,
      /\/(fuzz|chaos|load)\.test\.ts$/,
      `${status}: fuzz, chaos and load produce statuses by chance, never on purpose`,
    );
  }
});

const produced = (...statuses: string[]) => new Map(statuses.map((s) => [s, 1]));
const doc = new Map([
  ['200', 3],
  ['500', 2],
  ['503', 1],
  ['504', 1],
]);

test('a whole run fails a status whose owner ran but was never answered, and passes the rest', (t) => {
  const whole = judgeCoverage(doc, produced('200', '503'), ownersInRun([], root));
  t.deepEqual(whole.missing, ['504']);
  t.is(whole.verdicts.get('504'), 'owner did not produce it');
  t.is(whole.verdicts.get('500'), 'unproducible');
  t.is(whole.partial, undefined);
});

test('a partial run judges only the owners among its files: a status another file happens to produce decides nothing', (t) => {
  const screenshot = STATUS_OWNERS['504']!.file;
  const partial = judgeCoverage(doc, produced('200', '504'), ownersInRun([screenshot, '--verbose'], root));
  t.deepEqual(partial.missing, []);
  t.is(partial.verdicts.get('504'), 'produced');
  t.is(partial.verdicts.get('503'), 'not judged');
  t.truthy(partial.partial);
  // A folder names every file under it.
  const folder = judgeCoverage(doc, produced(), ownersInRun([path.dirname(screenshot)], root));
  t.deepEqual(folder.missing, ['504']);
  // Picked by title or by glob: which tests ran is unknown, so nothing is judged.
  for (const args of [['--match', '*x*'], ['test/**/*.test.ts']]) {
    const unknown = judgeCoverage(doc, produced(), ownersInRun(args, root));
    t.deepEqual(unknown.missing, [], args.join(' '));
  }
});

test('a documented status without an owner fails a whole run', (t) => {
  const withUnowned = new Map([...doc, ['418', 1]]);
  t.deepEqual(judgeCoverage(withUnowned, produced('200', '503', '504'), ownersInRun([], root)).missing, ['418']);
});
