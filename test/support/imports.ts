//! What the import checks (test/layers.test.ts, test/module-boundaries.test.ts) share: the source
//! folders and what each may import, and every .ts file's imports read with TypeScript's own parser.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SOURCE_FOLDERS = ['contracts', 'lib', 'domain', 'api', 'activities', 'workers', 'workflows', 'client'] as const;
export type Folder = (typeof SOURCE_FOLDERS)[number];

/** What each folder may import (types included), its own folder always. */
export const MAY_IMPORT: Record<Exclude<Folder, 'workflows'>, readonly Folder[]> = {
  contracts: ['contracts'],
  lib: ['contracts', 'lib'],
  domain: ['contracts', 'lib', 'domain'],
  api: ['contracts', 'lib', 'domain', 'api'],
  activities: ['contracts', 'lib', 'domain', 'activities'],
  workers: ['contracts', 'lib', 'domain', 'api', 'activities', 'workers', 'workflows'],
  client: ['client', 'lib'],
};
/** Process entry points compose every layer below them, like the workers do. */
export const ENTRY_POINTS: Record<string, readonly Folder[]> = {
  'api/server.ts': ['contracts', 'lib', 'domain', 'api', 'workers'],
};
/** Packages whose values may enter the workflow sandbox. */
export const SANDBOX_PACKAGES = ['@temporalio/workflow', '@temporalio/common'];

export interface Import {
  specifier: string;
  /** Erased at compile time: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
}

/** An import graph of made-up files (name -> source text), for the checks' own tests. */
export function graphOf(files: Record<string, string>): Map<string, Import[]> {
  return new Map(Object.entries(files).map(([name, text]) => [name, importsOf(name, text)]));
}

/** The imports of one source text. */
export function importsOf(fileName: string, text: string): Import[] {
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
export function resolveInRepo(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier)).replace(/\.js$/, '.ts');
}

export const folderOf = (file: string) => file.split('/')[0]!;
export const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);

export function sourceFiles(): string[] {
  return SOURCE_FOLDERS.flatMap((folder) =>
    (readdirSync(path.join(ROOT, folder), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => `${folder}/${f.split(path.sep).join('/')}`),
  ).sort();
}

/**
 * Modules of `folder` whose values the workflow sandbox could load: they and everything they import
 * as a value use no Node built-in and no package but the SDK's sandbox-safe ones.
 */
export function pureModules(graph: Map<string, Import[]>, folder: Folder): Set<string> {
  const pure = new Set([...graph.keys()].filter((f) => folderOf(f) === folder));
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
export function layerViolations(graph: Map<string, Import[]>): string[] {
  const pure = pureModules(graph, 'contracts');
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
        } else if (folderOf(target) !== 'workflows' && folderOf(target) !== 'contracts') {
          out.push(`${file} -> ${target} (a workflow imports only types from outside workflows/, or values of contracts/)`);
        }
        continue;
      }
      if (folder === 'contracts' && !imp.typeOnly && (target === null ? !SANDBOX_PACKAGES.includes(imp.specifier) : !pure.has(target))) {
        out.push(`${file} -> ${target ?? imp.specifier} (contracts/ is workflow-safe: no Node built-in, no package but the SDK's)`);
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
/** Every source file and its imports, parsed once for each test file that reads them. */
export function repoGraph(): Map<string, Import[]> {
  return (parsed ??= new Map(sourceFiles().map((f) => [f, importsOf(f, readFileSync(path.join(ROOT, f), 'utf8'))])));
}

/** Every package `file` loads, following value imports through the repo's own modules. */
export function packagesLoadedBy(graph: Map<string, Import[]>, file: string): Set<string> {
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
