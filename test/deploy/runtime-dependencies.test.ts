//! The image installs `dependencies` only (`npm prune --omit=dev`), so the code it runs (the
//! build's folders, tsconfig.build.json) loads no other package. Development tools (tsx, redoc,
//! pino-pretty, the test servers) are devDependencies; the two the code names from source only
//! are listed below with the line that keeps them out of the build's path.
import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const buildDirs = (JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;

/**
 * Development packages the build's code names, and why the image never loads them: tsx only for
 * a `.ts` thread file (the build runs `.js`), redoc only when the build's copy of its bundle is
 * absent (scripts/copy-assets.mjs puts it in dist/).
 */
const FROM_SOURCE_ONLY: Record<string, string> = {
  tsx: 'lib/thread-pool.ts',
  redoc: 'api/routes/docs.ts',
};

/** Package specifiers a module loads at run time: imports (not type-only), dynamic imports, require and resolve calls. */
function loadedSpecifiers(source: string): string[] {
  const code = source.replace(/^\s*(?:\/\/|\*|\/\*).*$/gm, '');
  const found: string[] = [];
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) if (!m[2]) found.push(m[3]!);
  for (const m of code.matchAll(/^\s*import\s+'([^']+)'/gm)) found.push(m[1]!);
  for (const m of code.matchAll(/(?:(?<![.\w$])import|(?<![.\w$])require(?:\.resolve)?|import\.meta\.resolve)\(\s*'([^']+)'/g))
    found.push(m[1]!);
  return found;
}

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);

test('the code the image runs loads only dependencies', (t) => {
  const wrong: string[] = [];
  let files = 0;
  for (const dir of buildDirs) {
    for (const name of readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts') || name.endsWith('.d.ts')) continue;
      files++;
      const file = path.join(dir, name);
      for (const specifier of loadedSpecifiers(readFileSync(path.join(root, file), 'utf8'))) {
        if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
        const name = packageOf(specifier);
        if (pkg.dependencies[name] || FROM_SOURCE_ONLY[name] === file) continue;
        wrong.push(`${file}: ${specifier}${pkg.devDependencies[name] ? ' (a devDependency)' : ' (not in package.json)'}`);
      }
    }
  }
  t.true(files > 100, `read ${files} files`);
  t.deepEqual(wrong, []);
});

test('the development tools are devDependencies', (t) => {
  for (const tool of ['tsx', 'redoc', 'pino-pretty', 'typescript', 'ava']) {
    t.truthy(pkg.devDependencies[tool], tool);
    t.falsy(pkg.dependencies[tool], tool);
  }
});

test("puppeteer-cluster's puppeteer is puppeteer-core: no second browser download package", (t) => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { name?: string; version?: string }>;
  };
  t.falsy(pkg.dependencies.puppeteer);
  t.is(lock.packages['node_modules/puppeteer']?.name, 'puppeteer-core');
  t.is(lock.packages['node_modules/puppeteer']?.version, pkg.dependencies['puppeteer-core']);
});
