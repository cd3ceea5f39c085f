//! The cached workflow bundle: reused while the files webpack read are unchanged, rebuilt as soon
//! as one of them changes (a worker must never run yesterday's workflow code).
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { createLogger } from '../../lib/logger.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';

// Inside the repository, so the workflow file resolves @temporalio/workflow from its node_modules.
const dir = fileURLToPath(new URL(`../../test-output/workflow-bundle-${process.pid}/`, import.meta.url));
const log = createLogger({ name: 'test', level: 'warn' });

test.after.always(() => rmSync(dir, { recursive: true, force: true }));

test('a bundle is reused until a file it was built from changes, then built again from the new code', async (t) => {
  mkdirSync(dir, { recursive: true });
  const workflowsPath = path.join(dir, 'workflows.ts');
  const greeting = path.join(dir, 'greeting.ts');
  writeFileSync(
    workflowsPath,
    "import { greeting } from './greeting.js';\nexport async function greet(): Promise<string> { return greeting; }\n",
  );
  writeFileSync(greeting, "export const greeting = 'first version';\n");
  const options = { workflowsPath, cacheDir: path.join(dir, 'cache') };

  const built = await workflowBundle(log, options);
  t.false(built.fromCache);
  t.true(built.code.includes('first version'));

  const again = await workflowBundle(log, options);
  t.true(again.fromCache);
  t.is(again.code, built.code);

  // A file the entry point imports, not the entry point itself: every file webpack read counts.
  writeFileSync(greeting, "export const greeting = 'second version';\n");
  const rebuilt = await workflowBundle(log, options);
  t.false(rebuilt.fromCache);
  t.true(rebuilt.code.includes('second version'));
  t.false(rebuilt.code.includes('first version'));
  t.true((await workflowBundle(log, options)).fromCache);
});

test('a source map removed after the build leaves the bundle cached (the images strip them); a changed one does not', async (t) => {
  const root = path.join(dir, 'maps');
  mkdirSync(root, { recursive: true });
  const workflowsPath = path.join(root, 'workflows.ts');
  const helper = path.join(root, 'helper.js');
  const map = `${helper}.map`;
  writeFileSync(workflowsPath, "import { word } from './helper.js';\nexport async function say(): Promise<string> { return word; }\n");
  writeFileSync(helper, 'export const word = "mapped";\n//# sourceMappingURL=helper.js.map\n');
  const sourceMap = { version: 3, sources: ['helper.ts'], names: [], mappings: 'AAAA' };
  writeFileSync(map, JSON.stringify(sourceMap));
  const options = { workflowsPath, cacheDir: path.join(root, 'cache') };

  t.false((await workflowBundle(log, options)).fromCache);
  const [entry] = readdirSync(options.cacheDir);
  t.true(map in JSON.parse(readFileSync(path.join(options.cacheDir, entry!), 'utf8')).inputs, 'the map is among the inputs');
  writeFileSync(map, JSON.stringify({ ...sourceMap, sources: ['other.ts'] }));
  t.false((await workflowBundle(log, options)).fromCache, 'a changed map: built again');
  rmSync(map);
  const stripped = await workflowBundle(log, options);
  t.true(stripped.fromCache, 'a removed map: still cached');
  t.true(stripped.code.includes('mapped'));
  rmSync(helper);
  writeFileSync(helper, 'export const word = "changed";\n');
  t.false((await workflowBundle(log, options)).fromCache, 'a changed module: built again');
});
