//! The MCP Inspector's own CLI (`@modelcontextprotocol/inspector`, pinned), as a person would run
//! it against the stack's `/mcp` with an API key: it lists the tools and calls one, and the call
//! is charged as any other.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { createHash } from 'node:crypto';
import { CATALOGUE } from '../../domain/tools/catalogue.js';
import { apiUrl, balanceOf, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The Inspector's CLI package (its `mcp-inspector --cli`), from the pinned Inspector's own dependencies:
// the `mcp-inspector` launcher would load the project's hoisted commander 2, not the 13 it needs.
const INSPECTOR = path.join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');

async function inspector(key: string, ...args: string[]) {
  const { stdout } = await run(
    INSPECTOR,
    ['--cli', `${apiUrl()}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args],
    // It keeps its connections and storage under the home directory: the run's own folder instead.
    // The CLI looks for `../package.json` from the working directory but loads it from its own
    // folder (its name and version for the client's identity): any folder one below a package.json.
    { cwd: path.join(ROOT, 'test'), env: { ...process.env, HOME: path.join(testEnv.outputDir(), 'mcp-inspector') }, maxBuffer: 1 << 24 },
  );
  return JSON.parse(stdout);
}

test('the Inspector CLI lists the tools and calls hash-text, charged 1 credit', async (t) => {
  const account = await newAccount(5);
  const listed = await inspector(account.apiKey, '--method', 'tools/list');
  const names = new Set(listed.tools.map((tool: { name: string }) => tool.name));
  for (const tool of CATALOGUE.keys()) t.true(names.has(tool), `${tool} is listed`);

  const called = await inspector(account.apiKey, '--method', 'tools/call', '--tool-name', 'hash-text', '--tool-arg', 'text=hello');
  t.falsy(called.isError, JSON.stringify(called));
  t.deepEqual(called.structuredContent, { algorithm: 'sha256', hash: createHash('sha256').update('hello').digest('hex') });
  t.like(called._meta, { charged: 1, balance: 4, replayed: false });
  t.is(await balanceOf(account), 4);
});
