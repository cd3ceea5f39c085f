//! docs/CONFIGURATION.md's table is the variables lib/config.ts reads (with config-services.ts, the
//! outside services' settings it takes in, and config-temporal.ts, Temporal's), with their defaults: read from the code, not kept in step by hand.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Each documented variable (a row may name several, `A`, `B`) with its default cell. */
function documented(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith('`')) continue;
    for (const [, name] of cells[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) rows.set(name!, cells[3]!);
  }
  return rows;
}

/** Every variable the config reads (`env.NAME`, `env['NAME']`, `int(env, 'NAME', ...)` and the like). */
function readByConfig(source: string): Set<string> {
  const names = new Set<string>();
  for (const [, name] of source.matchAll(/env(?:\.|\[')([A-Z][A-Z0-9_]*)/g)) names.add(name!);
  for (const [, name] of source.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)) names.add(name!);
  return names;
}

/** The literal defaults of `int(env, 'NAME', <default>, ...)` and `oneOf(..., <default>)`. */
function literalDefaults(source: string): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const [, name, value] of source.matchAll(/int\(env, '([A-Z_]+)', ([\d_]+)[,)]/g)) defaults.set(name!, value!.replaceAll('_', ''));
  for (const [, name, value] of source.matchAll(/oneOf\(env, '([A-Z_]+)', \[[^\]]*\] as const, '([^']+)'\)/g)) defaults.set(name!, value!);
  for (const [, name, value] of source.matchAll(/bool\(env, '([A-Z_]+)', (true|false)\)/g)) defaults.set(name!, value!);
  return defaults;
}

const config = ['lib/config.ts', 'lib/config-services.ts', 'lib/config-temporal.ts'].map(read).join('\n');
const table = documented(read('docs/CONFIGURATION.md'));

test('every variable lib/config.ts reads is documented, and nothing else is', (t) => {
  t.deepEqual([...table.keys()].sort(), [...readByConfig(config)].sort());
});

test('each literal default in the code is the one the table gives first', (t) => {
  const defaults = literalDefaults(config);
  t.true(defaults.size >= 10, `${defaults.size} literal defaults found`);
  for (const [name, value] of defaults) {
    // METRICS_PORT's literal is a floor, not a default: unset means not served.
    if (name === 'METRICS_PORT') continue;
    const cell = table.get(name);
    t.truthy(cell, `${name} documented`);
    t.true(cell!.startsWith(`\`${value}\``), `${name}: the code's default is ${value}, the table says ${cell}`);
  }
});
