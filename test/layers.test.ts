//! The layers import one way (docs/DEVELOPING.md): lib < domain < {api, activities} < workers,
//! and workflows take only types from outside, besides pure data of lib. Every .ts file of the
//! source folders is parsed with TypeScript's own parser: static imports and re-exports (their
//! `type` keywords read per clause and per name) and dynamic `import()` (test/support/imports.ts).
//! The client, the dashboard and the other boundaries: test/module-boundaries.test.ts.
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
  pureModules,
  repoGraph,
  resolveInRepo,
} from './support/imports.js';

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

test('nor does a script or a benchmark: scripts/ and bench/ import in one direction too', (t) => {
  const files = ['scripts', 'bench'].flatMap((folder) =>
    (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
      .filter((f) => /\.(ts|mjs)$/.test(f) && !/\.d\.m?ts$/.test(f))
      .map((f) => `${folder}/${f.split(path.sep).join('/')}`),
  );
  const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(path.join(ROOT, f), 'utf8'))]));
  t.true(graph.has('scripts/bootstrap.mjs') && graph.has('bench/stack.ts'));
  t.deepEqual(importCycles(graph), []);
});

/**
 * The domain's parts: a folder of domain/ (`domain/identity/`) is one part, a file at its top
 * (`domain/account-documents.ts`) one of its own. A part's imports of another part run one way: the groups of
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
  const cycles = domainPartCycles(
    graphOf({
      'domain/identity/context.ts': "import { createMemberships } from '../teams/memberships.js';",
      'domain/teams/members.ts': "import type { IdentityContext } from '../identity/context.js';",
      'domain/teams/memberships.ts': '',
      'domain/billing/a.ts': "import { x } from '../ledger.js';",
      'domain/ledger.ts': "import type { Y } from './billing/b.js';",
      'domain/billing/b.ts': '',
      'domain/mail/c.ts': "import { z } from '../events.js';",
      'domain/events.ts': '',
    }),
  );
  t.deepEqual(cycles, [
    'domain/billing/ <-> domain/ledger.ts: domain/billing/a.ts -> domain/ledger.ts; domain/ledger.ts -> domain/billing/b.ts',
    'domain/identity/ <-> domain/teams/: domain/identity/context.ts -> domain/teams/memberships.ts; domain/teams/members.ts -> domain/identity/context.ts',
  ]);
});

test('workflows load values only from workflows/ and contracts/, whose every module is workflow-safe', (t) => {
  const graph = repoGraph();
  const contracts = [...graph.keys()].filter((f) => folderOf(f) === 'contracts');
  // What the workflows use today: the error table, the call and its life, the Temporal names, the webhook messages and policy.
  for (const file of [
    'contracts/errors.ts',
    'contracts/call.ts',
    'contracts/call-life.ts',
    'contracts/temporal-names.ts',
    'contracts/webhook-policy.ts',
  ])
    t.true(contracts.includes(file), file);
  t.deepEqual([...pureModules(graph, 'contracts')].sort(), contracts.sort());
  // And the check tells them apart: modules with Node built-ins or I/O packages are not pure.
  const lib = pureModules(graph, 'lib');
  for (const file of ['lib/config.ts', 'lib/mongo.ts', 'lib/guarded-http.ts']) t.false(lib.has(file), file);
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
    return !(folderOf(target) === 'api' || target === 'domain/webhooks/index.ts' || target === 'contracts/event-kinds.ts');
  });
  t.deepEqual(
    beside.map((imp) => imp.specifier),
    [],
  );
  // Of the webhooks' public face, the route takes the service alone.
  const text = readFileSync(path.join(ROOT, route), 'utf8');
  const taken = [...text.matchAll(/import (?:type )?\{([^}]*)\} from '\.\.\/\.\.\/domain\/webhooks\/index\.js'/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').trim())
      .filter(Boolean),
  );
  t.deepEqual(taken, ['WebhookService']);
});

test("the webhook endpoint's state changes are pure: no SDK, so a unit test runs them outside a workflow", (t) => {
  const graph = repoGraph();
  t.true(graph.has('workflows/webhook-endpoint-state.ts'));
  t.deepEqual([...packagesLoadedBy(graph, 'workflows/webhook-endpoint-state.ts')], []);
});

test('every route file documents the operations it serves in its `.openapi.ts` sibling, and only there', (t) => {
  const graph = repoGraph();
  const routes = [...graph.keys()].filter((f) => f.startsWith('api/routes/') && !f.endsWith('.openapi.ts'));
  const documents = (f: string) => graph.has(f) && /^export function \w+Operations\(/m.test(readFileSync(path.join(ROOT, f), 'utf8'));
  t.deepEqual(
    routes.filter((file) => !documents(file.replace(/\.ts$/, '.openapi.ts'))),
    [],
    'each `api/routes/<name>.ts` has a `<name>.openapi.ts` exporting `<name>Operations()`, which api/openapi.ts collects',
  );
  t.deepEqual(routes.filter(documents), [], 'a router keeps to handling: its operations are written in its sibling');
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
