//! No source file over 450 lines: a longer one is split by responsibility (docs/DEVELOPING.md, Lint
//! and format). Every tracked .ts, .js and .mjs file counts, tests included; client/api-types.ts is
//! generated and exempt. Functions over 120 lines: Biome's noExcessiveLinesPerFunction (biome.json).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINES = 450;
const GENERATED = ['client/api-types.ts'];

/** The tracked source files (git's index, so nothing ignored or untracked), by path from the root. */
function trackedSources(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.js', '*.mjs'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !GENERATED.includes(f));
}

/** Lines as an editor numbers them: a last line without a newline counts, an empty file has none. */
const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

test(`no tracked .ts, .js or .mjs file is over ${MAX_LINES} lines (the generated client types aside)`, (t) => {
  const files = trackedSources();
  t.true(files.length > 500, `only ${files.length} tracked source files found`);
  t.true(files.includes('test/file-sizes.test.ts') && files.includes('dashboard/app.js'), 'the listing covers tests and browser code');
  const long = files
    .map((f) => ({ f, lines: lineCount(readFileSync(path.join(ROOT, f), 'utf8')) }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ f, lines }) => `${f}: ${lines} lines`);
  t.deepEqual(long, []);
});

test('the line count counts every line, a last one without a newline too, and none in an empty file', (t) => {
  t.is(lineCount('a\nb\n'), 2);
  t.is(lineCount('a\nb'), 2);
  t.is(lineCount(''), 0);
  t.is(lineCount('\n'.repeat(MAX_LINES + 1)), MAX_LINES + 1);
});
