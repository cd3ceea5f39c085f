//! The npm scripts are listed once, in docs/DEVELOPING.md ("npm scripts"): every script of
//! package.json has its line there, and the list names no script that is gone. Other pages link to
//! the list rather than keep one of their own.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const command = (name: string) => (name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`);

test('docs/DEVELOPING.md lists every npm script once, and no other', (t) => {
  const scripts = Object.keys(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>);
  const page = readFileSync(path.join(ROOT, 'docs/DEVELOPING.md'), 'utf8');
  const section = page.slice(page.indexOf('\n## npm scripts\n'), page.indexOf('\n## ', page.indexOf('\n## npm scripts\n') + 1));
  const listed = [...section.matchAll(/^\| `(npm [^`]+)` \|/gm)].map((m) => m[1]);
  t.true(scripts.length > 20, `only ${scripts.length} scripts read`);
  t.deepEqual([...listed].sort(), scripts.map(command).sort());
});
