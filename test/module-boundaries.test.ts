//! Where modules may reach beyond the layers (test/layers.test.ts): the tool definitions load no
//! heavy package, the client takes from the service only the pure webhook signature check, the
//! collections' document types load nothing, the proof runs stand on their own support, and the
//! dashboard (`dashboard/`, browser code) imports nothing outside its folder, and nothing imports it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import {
  type Import,
  ROOT,
  folderOf,
  graphOf,
  importsOf,
  layerViolations,
  packagesLoadedBy,
  repoGraph,
  resolveInRepo,
} from './support/imports.js';

test('the tool definitions are light: the API loads them without a browser, an image library or the model', (t) => {
  const graph = repoGraph();
  const loaded = [...packagesLoadedBy(graph, 'domain/tools/catalogue.ts')];
  t.true(loaded.includes('qrcode'), 'the walk reaches the definitions (qr-generate checks its text with qrcode)');
  const heavy = ['puppeteer', 'puppeteer-core', 'jimp', '@tensorflow/tfjs', 'upscaler', 'pdfjs-dist', 'cheerio', 'hash-wasm', 'piscina'];
  t.deepEqual(
    loaded.filter((p) => heavy.some((h) => p === h || p.startsWith(`${h}/`))),
    [],
  );
});

test('the client loads no package and nothing of the service but the webhook signature check', (t) => {
  const graph = repoGraph();
  t.true(graph.has('client/index.ts'));
  const reached = new Set<string>();
  const visit = (f: string) => {
    if (reached.has(f)) return;
    reached.add(f);
    for (const imp of graph.get(f) ?? []) {
      const target = imp.typeOnly ? null : resolveInRepo(f, imp.specifier);
      if (target) visit(target);
    }
  };
  visit('client/index.ts');
  t.deepEqual(
    [...reached].filter((f) => folderOf(f) !== 'client'),
    ['lib/webhook-signature.ts'],
  );
  // node:crypto serves verifyWebhook; Deno and Bun provide it too.
  t.deepEqual([...packagesLoadedBy(graph, 'client/index.ts')], ['node:crypto']);
});

test('the check reads type-only and value imports apart, dynamic imports included', (t) => {
  const violations = layerViolations(
    graphOf({
      'api/a.ts': "import { ledger } from '../activities/core/x.js';",
      'api/b.ts': "import type { Thing } from '../activities/core/x.js';",
      'activities/c.ts': "export { precheck } from '../api/prechecks/y.js';",
      'lib/d.ts': "const m = await import('../domain/ledger/ledger.js');",
      'domain/e.ts': "import { x } from '../contracts/errors.js'; import { type Y } from '../api/z.js';",
      'workflows/f.ts':
        "import type { CoreActivities } from '../activities/core/index.js'; import { type T } from '../domain/ledger/ledger.js';",
      'workflows/g.ts': "import { createLedger } from '../domain/ledger/ledger.js'; import { readFileSync } from 'node:fs';",
      'contracts/errors.ts': '',
      'workflows/h.ts': "import { ERRORS } from '../contracts/errors.js'; import { proxyActivities } from '@temporalio/workflow';",
    }),
  );
  t.deepEqual(
    violations.map((v) => v.split(' (')[0]),
    [
      'api/a.ts -> activities/core/x.ts',
      'api/b.ts -> activities/core/x.ts',
      'activities/c.ts -> api/prechecks/y.ts',
      'lib/d.ts -> domain/ledger/ledger.ts',
      'domain/e.ts -> api/z.ts',
      'workflows/g.ts -> domain/ledger/ledger.ts',
      'workflows/g.ts -> node:fs',
    ],
  );
});

test("the collections' document types are types only: each documents file loads nothing, and lib imports none", (t) => {
  const graph = repoGraph();
  const documents = [...graph.keys()].filter((f) => /(^|[/-])documents\.ts$/.test(f));
  t.true(
    documents.includes('domain/account-documents.ts') && documents.includes('domain/identity/documents.ts'),
    'the document types live beside their domains',
  );
  t.deepEqual(
    documents.flatMap((f) =>
      graph
        .get(f)!
        .filter((imp) => !imp.typeOnly)
        .map((imp) => `${f} -> ${imp.specifier}`),
    ),
    [],
  );
  t.deepEqual(
    documents.filter((f) => folderOf(f) === 'lib'),
    [],
  );
});

test('the proof runs (npm run chaos, load, fuzz, soak) live beside the disruptive suites and stand on their support, not on bench/', (t) => {
  const runners = readdirSync(path.join(ROOT, 'test', 'disruptive'))
    .filter((f) => /^run-.*\.ts$/.test(f))
    .map((f) => `test/disruptive/${f}`);
  t.deepEqual(runners.sort(), [
    'test/disruptive/run-chaos.ts',
    'test/disruptive/run-fuzz.ts',
    'test/disruptive/run-load.ts',
    'test/disruptive/run-soak.ts',
  ]);
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  for (const name of ['chaos', 'load', 'fuzz', 'soak'])
    t.is(scripts[name], `node scripts/node.mjs --import tsx test/disruptive/run-${name}.ts`, `npm run ${name}`);
  const crossings = runners.flatMap((file) =>
    importsOf(file, readFileSync(path.join(ROOT, file), 'utf8'))
      .map((imp) => resolveInRepo(file, imp.specifier))
      .filter((target) => target?.startsWith('bench/'))
      .map((target) => `${file} -> ${target}`),
  );
  t.deepEqual(crossings, []);
});

/** The dashboard's modules (`dashboard/*.js`, browser code the API serves as files) and their imports. */
function dashboardModules(): Map<string, Import[]> {
  const dir = path.join(ROOT, 'dashboard');
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => {
        const text = readFileSync(path.join(dir, f), 'utf8');
        // JSDoc types import too (`import('./app.js').ViewContext`): a comment the parser skips.
        const typeImports = [...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => ({ specifier: m[1]!, typeOnly: true }));
        return [`dashboard/${f}`, [...importsOf(f, text), ...typeImports]];
      }),
  );
}
/**
 * Dashboard modules that import a file by a computed URL, an asset the route adds to the folder's:
 * passkeys.js loads SimpleWebAuthn's bundle (PACKAGE_ASSETS), view-webhooks.js the event types
 * (GENERATED_ASSETS).
 */
const COMPUTED_DASHBOARD_IMPORTS = ['dashboard/passkeys.js', 'dashboard/view-webhooks.js'];

test('the dashboard imports nothing outside dashboard/: no module of the service, no package', (t) => {
  const modules = dashboardModules();
  t.true(modules.size > 30, `only ${modules.size} dashboard modules found`);
  t.true([...modules.values()].flat().length > 100, 'too few dashboard imports parsed');
  const outside = [...modules].flatMap(([file, imports]) =>
    imports
      .filter((imp) => {
        if (imp.specifier === '<computed>') return !COMPUTED_DASHBOARD_IMPORTS.includes(file);
        const target = resolveInRepo(file, imp.specifier);
        return target === null || folderOf(target) !== 'dashboard';
      })
      .map((imp) => `${file} -> ${imp.specifier}`),
  );
  t.deepEqual(outside, []);
});

test('nothing imports the dashboard: the API serves its files as static assets, and only its route names the folder', (t) => {
  const graph = repoGraph();
  const tests = (readdirSync(path.join(ROOT, 'test'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `test/${f.split(path.sep).join('/')}`);
  const importers = [...graph.keys(), ...tests].flatMap((file) =>
    (graph.get(file) ?? importsOf(file, readFileSync(path.join(ROOT, file), 'utf8')))
      .map((imp) => resolveInRepo(file, imp.specifier))
      .filter((target) => target !== null && folderOf(target) === 'dashboard')
      .map((target) => `${file} -> ${target}`),
  );
  t.deepEqual(importers, []);
  // Its files are read from disk by one module, the route that serves them.
  const readers = [...graph.keys()].filter((f) => /new URL\(\s*['"](\.\.\/)+dashboard\//.test(readFileSync(path.join(ROOT, f), 'utf8')));
  t.deepEqual(readers, ['api/routes/dashboard.ts']);
});
