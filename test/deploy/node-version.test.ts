//! One Node.js everywhere: the release scripts/pinned-node.mjs installs (and re-runs the entry
//! scripts on), `engines`, .nvmrc, the image's base and the Node types the code is checked
//! against name the same major, and the suite itself runs on it.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
// pinned-node.mjs is plain JavaScript without types: imported by URL, typed here.
const { NODE_VERSION, NODE_MAJOR } = (await import(new URL('../../scripts/pinned-node.mjs', import.meta.url).href)) as {
  NODE_VERSION: string;
  NODE_MAJOR: number;
};

const major = (version: string) => Number(/^\D*(\d+)/.exec(version)?.[1]);

test('the pinned Node is a 24 LTS release', (t) => {
  t.regex(NODE_VERSION, /^\d+\.\d+\.\d+$/);
  t.is(NODE_MAJOR, 24);
});

test('engines asks for the pinned major or later', (t) => {
  t.is(pkg.engines.node, `>=${NODE_MAJOR}`);
});

test('.nvmrc names the pinned release', (t) => {
  t.is(read('.nvmrc').trim(), NODE_VERSION);
});

test('every stage of the image starts from the pinned major', (t) => {
  const dockerfile = read('Dockerfile');
  // The base is a build argument (a local equivalent where no registry serves it); its default is the official image.
  const args = Object.fromEntries([...dockerfile.matchAll(/^ARG\s+(\w+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)];
  // A stage built on an earlier stage (FROM build AS ...) has that stage's base.
  const stages = new Set(froms.map((m) => m[2]).filter(Boolean));
  const bases = froms
    .map((m) => m[1]!.replace(/^\$\{(\w+)\}$/, (_, name: string) => args[name] ?? name))
    .filter((base) => !stages.has(base));
  t.true(bases.length > 0);
  for (const base of bases) t.regex(base, new RegExp(`^node:${NODE_MAJOR}(?:[.-]|$)`), base);
});

test('the code is type-checked against the Node types of the pinned major', (t) => {
  t.is(major(pkg.devDependencies['@types/node']!), NODE_MAJOR);
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string }> };
  t.is(major(lock.packages['node_modules/@types/node']!.version!), NODE_MAJOR);
});

test('the suite runs on the pinned major or later (npm test re-runs itself on it)', (t) => {
  t.true(major(process.versions.node) >= NODE_MAJOR, process.version);
});

/** The build's steps run on whatever Node runs the build: the image's, or the pinned one inside npm test. */
const BUILD_STEPS = ['build', 'generate:client'];

test('every script that runs Node goes through the pinned Node', (t) => {
  for (const [name, command] of Object.entries(pkg.scripts)) {
    if (BUILD_STEPS.includes(name) || !command.startsWith('node ')) continue;
    const [, first] = command.split(/\s+/);
    if (first === 'scripts/node.mjs') continue; // the launcher: `node scripts/node.mjs <node arguments>`
    t.true(first?.endsWith('.mjs') && /^await onPinnedNode\(\);$/m.test(read(first)), `${name}: ${command}`);
  }
});
