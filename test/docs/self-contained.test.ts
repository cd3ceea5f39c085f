//! The repository speaks for itself: no tracked file cites a document that is not in it (the
//! planning notes that lived beside the checkout) or an issue tracker's number, neither of which a
//! reader of the repository can follow. A rule the code keeps is written in docs/ (docs/API.md
//! first) and a comment points there or states it.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** This file, the one that must name what it looks for. */
const SELF = 'test/docs/self-contained.test.ts';

interface Citation {
  what: string;
  pattern: RegExp;
  /** Files the pattern does not apply to (by how their name ends). */
  skip?: readonly string[];
}

const CITATIONS: readonly Citation[] = [
  // The planning documents by name, wherever they are said to be.
  { what: 'a document outside the repository', pattern: /\b(CONTRACT|SPEC|ARCHITECTURE|FIELD-NOTES)(\.md)?\b(?![\w-])/ },
  // Their folder: `shared/...` or `../shared/...` as a path's first folder (a module such as
  // `temporal-shared.ts` or a folder `lib/shared/` is not it).
  { what: 'the shared folder outside the repository', pattern: /(^|[\s'"`([])(\.\.\/)*shared\// },
  // "issue 40", "Issue #7", "issues 12", "pull request 3", "PR #5".
  { what: 'an issue number', pattern: /\b(issues?|pull requests?|PR)\s*#\d+|\b(issues?|pull requests?)\s+\d+\b/i },
  // A bare "#12" or "(#1400)": a number of 1 to 5 digits, no leading zero, after a space, a
  // bracket or the line's start, and not part of a longer word. Colours are not it: they follow a
  // colon (`color: #333`), and stylesheets are skipped; HTML entities (`&#39;`) and URL fragments
  // follow other characters.
  { what: 'an issue number', pattern: /(?<!:\s*)(^|[\s([])#[1-9]\d{0,4}(?![\w-])/, skip: ['.css', '.svg', '.html'] },
];

/** Tracked text files: git's list, binary files (a NUL byte) left out. */
function trackedTextFiles(): { file: string; text: string }[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean);
  const out: { file: string; text: string }[] = [];
  for (const file of files) {
    let buf: Buffer;
    try {
      buf = readFileSync(path.join(ROOT, file));
    } catch {
      continue; // deleted in the work tree, not yet in the index
    }
    if (buf.includes(0)) continue;
    out.push({ file, text: buf.toString('utf8') });
  }
  return out;
}

function citationsIn(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  for (const { what, pattern, skip } of CITATIONS) {
    if (skip?.some((end) => file.endsWith(end))) continue;
    lines.forEach((line, i) => {
      const m = pattern.exec(line);
      if (m) found.push(`${file}:${i + 1}: ${what}: ${m[0].trim()}`);
    });
  }
  return found;
}

test('the patterns find each kind of citation and nothing that only looks like one', (t) => {
  const cites = (line: string, file = 'x.ts') => citationsIn(file, line).length > 0;
  for (const line of [
    '// as CONTRACT.md says',
    '/** the limit (SPEC.md: "waits") */',
    'per FIELD-NOTES: the loader',
    'see ../shared/STYLE.md',
    'took minutes (shared/FIELD-NOTES.md).',
    '// fixed in issue 40',
    '(Issue #7)',
    'after PR #5 landed',
    '// see #12',
    'the exporter sink (#1400).',
    '#3 is open',
  ])
    t.true(cites(line), line);
  for (const line of [
    'color: #333;',
    'border: 1px solid #767676;',
    'box-shadow:0 0 8px #0008;',
    's.replace(/&(amp|#39|apos);/g, ...)',
    'https://github.com/owner/repo/issues/1971',
    'docs/errors#insufficient-credits',
    '[Batches](#batches)',
    "import { QUEUE } from '../lib/temporal-shared.js';",
    'lib/shared/cache.ts',
    'the contract table in docs/API.md',
    'reissue2871.xyz',
    'no issues found in 3 runs',
    'the SPECIFIC case',
  ])
    t.false(cites(line), line);
  t.false(cites('  --muted: #595959; #333', 'api/dashboard/dashboard.css'));
});

test('no tracked file cites a document outside the repository or an issue number', (t) => {
  const files = trackedTextFiles();
  t.true(files.length > 100, 'git lists the repository');
  const found = files.filter(({ file }) => file !== SELF).flatMap(({ file, text }) => citationsIn(file, text));
  t.deepEqual(found, [], found.join('\n'));
});
