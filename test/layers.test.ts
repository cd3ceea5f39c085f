//! The layers import one way (docs/DEVELOPING.md): lib < domain < {api, activities} < workers,
//! and workflows take only types from outside, besides pure data of lib. Every .ts file of the
//! source folders is parsed with TypeScript's own parser: static imports and re-exports (their
//! `type` keywords read per clause and per name) and dynamic `import()`. The client (`client/`),
//! which callers run, takes from the service only the pure webhook signature check. The dashboard
//! (`dashboard/`, browser code) imports nothing outside its folder, and nothing imports it.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_FOLDERS = ['lib', 'domain', 'api', 'activities', 'workers', 'workflows', 'client'] as const;
type Folder = (typeof SOURCE_FOLDERS)[number];

/** What each folder may import (types included), its own folder always. */
const MAY_IMPORT: Record<Exclude<Folder, 'workflows'>, readonly Folder[]> = {
  lib: ['lib'],
  domain: ['lib', 'domain'],
  api: ['lib', 'domain', 'api'],
  activities: ['lib', 'domain', 'activities'],
  workers: ['lib', 'domain', 'api', 'activities', 'workers', 'workflows'],
  client: ['client', 'lib'],
};
/** Process entry points compose every layer below them, like the workers do. */
const ENTRY_POINTS: Record<string, readonly Folder[]> = {
  'api/server.ts': ['lib', 'domain', 'api', 'workers'],
};
/** Packages whose values may enter the workflow sandbox. */
const SANDBOX_PACKAGES = ['@temporalio/workflow', '@temporalio/common'];

interface Import {
  specifier: string;
  /** Erased at compile time: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
}

/** The imports of one source text. */
function importsOf(fileName: string, text: string): Import[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const allNamedAreTypes = !!named && named.length > 0 && named.every((e) => e.isTypeOnly) && !clause!.name;
      // A bare `import 'x'` runs the module: a value import.
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: !!clause && (clause.isTypeOnly || allNamedAreTypes) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const allNamedAreTypes = !!named && named.length > 0 && named.every((e) => e.isTypeOnly);
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || allNamedAreTypes });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      found.push({ specifier: arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>', typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `lib/x.ts` for a relative specifier, `null` for a package or a Node built-in. */
function resolveInRepo(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier)).replace(/\.js$/, '.ts');
}

const folderOf = (file: string) => file.split('/')[0]!;
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);

function sourceFiles(): string[] {
  return SOURCE_FOLDERS.flatMap((folder) =>
    (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => `${folder}/${f.split(path.sep).join('/')}`),
  ).sort();
}

/**
 * Lib modules whose values the workflow sandbox may load: they and everything they import as a
 * value use no Node built-in and no package but the SDK's sandbox-safe ones.
 */
function pureLibModules(graph: Map<string, Import[]>): Set<string> {
  const pure = new Set([...graph.keys()].filter((f) => folderOf(f) === 'lib'));
  for (let changed = true; changed; ) {
    changed = false;
    for (const file of pure) {
      const ok = graph.get(file)!.every((imp) => {
        if (imp.typeOnly) return true;
        const target = resolveInRepo(file, imp.specifier);
        if (target === null) return !isBuiltin(imp.specifier) && SANDBOX_PACKAGES.includes(imp.specifier);
        return pure.has(target);
      });
      if (!ok) {
        pure.delete(file);
        changed = true;
      }
    }
  }
  return pure;
}

/** Every import that breaks the layering, as `file -> target (why)`. */
function layerViolations(graph: Map<string, Import[]>): string[] {
  const pure = pureLibModules(graph);
  const out: string[] = [];
  for (const [file, imports] of graph) {
    const folder = folderOf(file) as Folder;
    for (const imp of imports) {
      const target = resolveInRepo(file, imp.specifier);
      if (folder === 'workflows') {
        if (imp.typeOnly) continue;
        if (target === null) {
          if (!SANDBOX_PACKAGES.includes(imp.specifier))
            out.push(`${file} -> ${imp.specifier} (a workflow imports values only from the SDK's workflow packages)`);
        } else if (folderOf(target) !== 'workflows' && !pure.has(target)) {
          out.push(`${file} -> ${target} (a workflow imports only types from outside workflows/, or values of pure lib modules)`);
        }
        continue;
      }
      if (target === null) continue;
      const allowed = ENTRY_POINTS[file] ?? MAY_IMPORT[folder];
      if (!allowed.includes(folderOf(target) as Folder)) out.push(`${file} -> ${target} (${folder}/ may import ${allowed.join(', ')})`);
    }
  }
  return out;
}

let parsed: Map<string, Import[]> | undefined;
/** Every source file and its imports, parsed once for this file's tests. */
function repoGraph(): Map<string, Import[]> {
  return (parsed ??= new Map(sourceFiles().map((f) => [f, importsOf(f, readFileSync(path.join(ROOT, f), 'utf8'))])));
}

test('no layer imports one above it or beside it', (t) => {
  const graph = repoGraph();
  t.true(graph.size > 150, `only ${graph.size} source files found`);
  t.true([...graph.values()].flat().length > 500, 'too few imports parsed');
  t.deepEqual(layerViolations(graph), []);
});

/** Import cycles (types included) among the repo's modules, each as `a -> b -> ... -> a`. */
function importCycles(graph: Map<string, Import[]>): string[] {
  const edges = (f: string) => [
    ...new Set((graph.get(f) ?? []).map((imp) => resolveInRepo(f, imp.specifier)).filter((t): t is string => t !== null && graph.has(t))),
  ];
  const cycles: string[] = [];
  const done = new Set<string>();
  const trail: string[] = [];
  const visit = (f: string) => {
    const at = trail.indexOf(f);
    if (at >= 0) {
      cycles.push([...trail.slice(at), f].join(' -> '));
      return;
    }
    if (done.has(f)) return;
    trail.push(f);
    for (const next of edges(f)) visit(next);
    trail.pop();
    done.add(f);
  };
  for (const file of graph.keys()) visit(file);
  return cycles;
}

test('no module imports itself through others: what two modules share has a home of its own', (t) => {
  t.deepEqual(importCycles(repoGraph()), []);
});

/**
 * The domain's parts: a folder of domain/ (`domain/identity/`) is one part, a file at its top
 * (`domain/ledger.ts`) one of its own. A part's imports of another part run one way: the groups of
 * parts that import each other, each as its parts and one import of each that closes the circle.
 */
const domainPart = (file: string) => {
  const [, folder, ...rest] = file.split('/');
  return rest.length ? `domain/${folder}/` : file;
};
function domainPartCycles(graph: Map<string, Import[]>): string[] {
  const edges = new Map<string, Map<string, string>>(); // part -> part it imports -> one import that does
  for (const [file, imports] of graph) {
    if (folderOf(file) !== 'domain') continue;
    for (const imp of imports) {
      const target = resolveInRepo(file, imp.specifier);
      if (!target || folderOf(target) !== 'domain' || domainPart(target) === domainPart(file)) continue;
      const from = edges.get(domainPart(file)) ?? new Map<string, string>();
      if (!from.has(domainPart(target))) from.set(domainPart(target), `${file} -> ${target}`);
      edges.set(domainPart(file), from);
    }
  }
  // Tarjan's strongly connected components: a component of two or more parts is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (part: string) => {
    index.set(part, index.size);
    low.set(part, index.get(part)!);
    stack.push(part);
    for (const next of edges.get(part)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(part, Math.min(low.get(part)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(part, Math.min(low.get(part)!, index.get(next)!));
    }
    if (low.get(part) !== index.get(part)) return;
    const component: string[] = [];
    for (let top = ''; top !== part; ) component.push((top = stack.pop()!));
    if (component.length < 2) return;
    const members = new Set(component);
    const via = component.flatMap((p) => [...(edges.get(p) ?? [])].filter(([to]) => members.has(to)).map(([, imp]) => imp));
    found.push(`${component.sort().join(' <-> ')}: ${via.sort().join('; ')}`);
  };
  for (const part of [...edges.keys()].sort()) if (!index.has(part)) visit(part);
  return found;
}

test('the parts of domain/ import each other one way: what two share has a home both import', (t) => {
  t.deepEqual(domainPartCycles(repoGraph()), []);
});

test('the domain check finds a cycle between two folders, and through a file at the top', (t) => {
  const file = (name: string, text: string) => [name, importsOf(name, text)] as const;
  const cycles = domainPartCycles(
    new Map([
      file('domain/identity/context.ts', "import { createMemberships } from '../teams/memberships.js';"),
      file('domain/teams/members.ts', "import type { IdentityContext } from '../identity/context.js';"),
      file('domain/teams/memberships.ts', ''),
      file('domain/billing/a.ts', "import { x } from '../ledger.js';"),
      file('domain/ledger.ts', "import type { Y } from './billing/b.js';"),
      file('domain/billing/b.ts', ''),
      file('domain/mail/c.ts', "import { z } from '../events.js';"),
      file('domain/events.ts', ''),
    ]),
  );
  t.deepEqual(cycles, [
    'domain/billing/ <-> domain/ledger.ts: domain/billing/a.ts -> domain/ledger.ts; domain/ledger.ts -> domain/billing/b.ts',
    'domain/identity/ <-> domain/teams/: domain/identity/context.ts -> domain/teams/memberships.ts; domain/teams/members.ts -> domain/identity/context.ts',
  ]);
});

test('workflows load values only from workflows/ and pure lib modules', (t) => {
  const graph = repoGraph();
  const pure = pureLibModules(graph);
  // What the workflows use today: the error table, the shared names, the webhook messages and policy.
  for (const file of ['lib/errors.ts', 'lib/temporal-shared.ts', 'lib/webhook-messages.ts', 'lib/webhook-policy.ts'])
    t.true(pure.has(file), file);
  // And what they must not: modules with Node built-ins or I/O packages.
  for (const file of ['lib/config.ts', 'lib/mongo.ts', 'lib/guarded-http.ts']) t.false(pure.has(file), file);
});

/** Every package `file` loads, following value imports through the repo's own modules. */
function packagesLoadedBy(graph: Map<string, Import[]>, file: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const imp of graph.get(f) ?? []) {
      if (imp.typeOnly) continue;
      const target = resolveInRepo(f, imp.specifier);
      if (target === null) packages.add(imp.specifier);
      else visit(target);
    }
  };
  visit(file);
  return packages;
}

test('the tool definitions are light: the API loads them without a browser, an image library or the model', (t) => {
  const graph = repoGraph();
  const loaded = [...packagesLoadedBy(graph, 'domain/catalogue.ts')];
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

/** `api/routes/webhooks.openapi.ts` -> `webhooks`: a route file and its OpenAPI sibling are one route. */
const routeName = (file: string) => path.posix.basename(file).replace(/(\.openapi)?\.ts$/, '');

test('route files do not import each other: what two routes share has a module of its own in api/', (t) => {
  const graph = repoGraph();
  const routes = [...graph.keys()].filter((f) => f.startsWith('api/routes/'));
  t.true(routes.length >= 8, `${routes.length} route files found`);
  const crossings = routes.flatMap((file) =>
    graph
      .get(file)!
      .map((imp) => resolveInRepo(file, imp.specifier))
      .filter((target) => target?.startsWith('api/routes/') && routeName(target) !== routeName(file))
      .map((target) => `${file} -> ${target}`),
  );
  t.deepEqual(crossings, []);
});

test('lib/ is infrastructure: no lib module but lib/mongo.ts reads the collections (domain code does)', (t) => {
  const graph = repoGraph();
  const readers = [...graph.entries()]
    .filter(([file]) => folderOf(file) === 'lib' && file !== 'lib/mongo.ts')
    .filter(([file, imports]) => imports.some((imp) => !imp.typeOnly && resolveInRepo(file, imp.specifier) === 'lib/mongo.ts'))
    .map(([file]) => file);
  t.deepEqual(readers, []);
});

test('the webhook routes are HTTP only: what a request does is the webhook service in domain/webhooks/', (t) => {
  const graph = repoGraph();
  const route = 'api/routes/webhooks.ts';
  t.true(graph.has('domain/webhooks/service.ts'));
  const beside = graph.get(route)!.filter((imp) => {
    const target = resolveInRepo(route, imp.specifier);
    if (target === null) return !['@koa/router', 'koa'].includes(imp.specifier);
    return !(folderOf(target) === 'api' || target === 'domain/webhooks/service.ts' || target === 'lib/event-kinds.ts');
  });
  t.deepEqual(
    beside.map((imp) => imp.specifier),
    [],
  );
});

test("the webhook endpoint's state changes are pure: no SDK, so a unit test runs them outside a workflow", (t) => {
  const graph = repoGraph();
  t.true(graph.has('workflows/webhook-endpoint-state.ts'));
  t.deepEqual([...packagesLoadedBy(graph, 'workflows/webhook-endpoint-state.ts')], []);
});

test('every route file documents the operations it serves, beside its router', (t) => {
  const graph = repoGraph();
  const routes = [...graph.keys()].filter((f) => f.startsWith('api/routes/') && !f.endsWith('.openapi.ts'));
  const undocumented = routes.filter((file) =>
    [file, file.replace(/\.ts$/, '.openapi.ts')]
      .filter((f) => graph.has(f))
      .every((f) => !/^export function \w+Operations\(/m.test(readFileSync(path.join(ROOT, f), 'utf8'))),
  );
  t.deepEqual(
    undocumented,
    [],
    'each exports `<name>Operations()` (or its `<name>.openapi.ts` sibling does), which api/openapi.ts collects',
  );
});

test("the document's parts (api/docs/) import no route: the routes build their operations from them", (t) => {
  const graph = repoGraph();
  const parts = [...graph.keys()].filter((f) => f.startsWith('api/docs/'));
  t.true(parts.length >= 5, `${parts.length} files found in api/docs/`);
  const upward = parts.flatMap((file) =>
    graph
      .get(file)!
      .map((imp) => resolveInRepo(file, imp.specifier))
      .filter((target) => target?.startsWith('api/routes/'))
      .map((target) => `${file} -> ${target}`),
  );
  t.deepEqual(upward, []);
});

test('the check reads type-only and value imports apart, dynamic imports included', (t) => {
  const file = (name: string, text: string) => [name, importsOf(name, text)] as const;
  const violations = layerViolations(
    new Map([
      file('api/a.ts', "import { ledger } from '../activities/core/x.js';"),
      file('api/b.ts', "import type { Thing } from '../activities/core/x.js';"),
      file('activities/c.ts', "export { precheck } from '../api/prechecks/y.js';"),
      file('lib/d.ts', "const m = await import('../domain/ledger.js');"),
      file('domain/e.ts', "import { x } from '../lib/errors.js'; import { type Y } from '../api/z.js';"),
      file(
        'workflows/f.ts',
        "import type { CoreActivities } from '../activities/core/index.js'; import { type T } from '../domain/ledger.js';",
      ),
      file('workflows/g.ts', "import { createLedger } from '../domain/ledger.js'; import { readFileSync } from 'node:fs';"),
      file('lib/errors.ts', ''),
      file('workflows/h.ts', "import { ERRORS } from '../lib/errors.js'; import { proxyActivities } from '@temporalio/workflow';"),
    ]),
  );
  t.deepEqual(
    violations.map((v) => v.split(' (')[0]),
    [
      'api/a.ts -> activities/core/x.ts',
      'api/b.ts -> activities/core/x.ts',
      'activities/c.ts -> api/prechecks/y.ts',
      'lib/d.ts -> domain/ledger.ts',
      'domain/e.ts -> api/z.ts',
      'workflows/g.ts -> domain/ledger.ts',
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
/** Dashboard modules that import a file by a computed URL: passkeys.js loads SimpleWebAuthn's bundle, a dashboard asset by PACKAGE_ASSETS. */
const COMPUTED_DASHBOARD_IMPORTS = ['dashboard/passkeys.js'];

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
