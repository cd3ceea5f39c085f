//! The client as a consumer outside the repo gets it: compiled as `npm run build` compiles it,
//! packed with `npm pack` (package.json's `files` and `exports`), unpacked into a temporary
//! project's node_modules with none of the service's dependencies, type-checked without
//! skipLibCheck, and run with plain Node against the stack.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { apiUrl, newAccount } from '../helpers/api.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');

/** Other runtimes the client is run on when they are on PATH (the suite does not install them). */
const RUNTIMES: Record<string, string[]> = { bun: ['run'], deno: ['run', '--allow-env', '--allow-net', '--allow-read'] };
const onPath = (name: string) => {
  try {
    execFileSync(name, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

const CONSUMER = `import { UtilityTools, UtilityToolsError, type ToolResult } from 'utility-tools/client';
import { verifyWebhook } from 'utility-tools/webhooks';

const client = new UtilityTools({ baseUrl: process.env.API_URL!, apiKey: process.env.API_KEY! });
const { hash, charged } = await client.tools.hashText({ text: 'hello world' });
const qr: ToolResult<'qr-generate'> = await client.tools.qrGenerate({ text: 'consumer', size: 64 });
const png: Uint8Array = qr.image;
if (process.env.NEVER) {
  // @ts-expect-error: inputs are typed, a misspelt field does not compile
  await client.tools.hashText({ txt: 'typo' });
  // @ts-expect-error: so are outputs
  qr.nonexistent;
}
try {
  await client.tools.websiteScreenshot({ url: 'https://example.com' });
} catch (err) {
  if (!(err instanceof UtilityToolsError) || err.code !== 'insufficient_credits') throw err;
}
console.log(JSON.stringify({ hash, charged, balance: qr.balance, pngBytes: png.length, verify: typeof verifyWebhook }));
`;

test('npm pack, install into a project outside the repo, type-check and run a script calling two tools', async (t) => {
  // `npm run build` compiles the client too (tsconfig.build.json), as this test does on its own.
  t.true(JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')).include.includes('client'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'utility-tools-consumer-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // The package as the build makes it: package.json and dist/ (the client's part of it).
  const pkg = path.join(work, 'pkg');
  mkdirSync(pkg);
  for (const file of ['package.json', 'README.md']) cpSync(path.join(ROOT, file), path.join(pkg, file));
  cpSync(path.join(ROOT, 'docs'), path.join(pkg, 'docs'), { recursive: true });
  await run(tsc, ['-p', path.join(ROOT, 'tsconfig.client.json'), '--outDir', path.join(pkg, 'dist')], { cwd: ROOT });
  await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: pkg });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  t.truthy(tarball, 'npm pack made a tarball');
  const { stdout: listing } = await run('tar', ['-tzf', path.join(work, tarball!)]);
  t.true(listing.includes('package/dist/client/index.d.ts'));
  t.false(listing.includes('package/dist/api/'), 'the service stays out of the package');

  const consumer = path.join(work, 'consumer');
  const installed = path.join(consumer, 'node_modules', 'utility-tools');
  mkdirSync(installed, { recursive: true });
  // Unpacked as npm installs it, without the service's dependencies: the client needs none.
  await run('tar', ['-xzf', path.join(work, tarball!), '-C', installed, '--strip-components=1']);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(path.join(consumer, 'main.ts'), CONSUMER);
  writeFileSync(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'out',
        lib: ['ES2022', 'DOM'],
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      },
      files: ['main.ts'],
    }),
  );
  const compiled = await run(tsc, ['-p', consumer], { cwd: consumer }).catch((err) => err);
  t.is(compiled.code ?? 0, 0, `${compiled.stdout ?? ''}${compiled.stderr ?? ''}`);

  const expected = {
    hash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    charged: 1,
    balance: 18,
    verify: 'function',
  };
  const runWith = async (command: string, args: string[]) => {
    const account = await newAccount(20);
    const { stdout } = await run(command, [...args, path.join(consumer, 'out', 'main.js')], {
      cwd: consumer,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, API_URL: apiUrl(), API_KEY: account.apiKey },
    });
    const printed = JSON.parse(stdout);
    t.like(printed, expected, command);
    t.true(printed.pngBytes > 0);
  };
  await runWith(process.execPath, []);
  for (const [runtime, args] of Object.entries(RUNTIMES)) {
    if (!onPath(runtime)) continue;
    await runWith(runtime, args);
    t.log(`also ran on ${runtime}`);
  }
});
