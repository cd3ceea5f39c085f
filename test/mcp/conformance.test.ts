//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against the
//! stack's `/mcp`: every scenario that applies to a server of tools passes, and the others fail
//! only as test/mcp/conformance-expected-failures.yaml says, each with its reason (the suite
//! itself fails a run whose failures differ from that list, either way). The suite sends no
//! credential: a loopback proxy in front adds the key, and gives a request from its own origin the
//! service's origin, as a page served by the service would send it; a foreign origin passes as it
//! came, for the server to refuse.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { apiUrl, newAccount } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONFORMANCE = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const EXPECTED_FAILURES = path.join(ROOT, 'test', 'mcp', 'conformance-expected-failures.yaml');

/**
 * Scenarios that pass without proving anything here: each calls a reference server's test tool this
 * server lacks, and checks only what this server's `unknown_tool` refusal also is (text content).
 */
const VACUOUS = ['tools-call-simple-text'];

/** The scenarios any server of tools must pass: never in the expected failures. */
const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

/** Requests a second the proxy lets through: under the account's rate (RATE_LIMIT_PER_SECOND, 20), as a polite client keeps. */
const PACE_PER_SECOND = 15;

/**
 * A loopback proxy to the API: each request gets `Authorization: Bearer <key>`, and an `Origin`
 * that is the proxy's own becomes the service's (`serviceOrigin`); requests go on at most
 * PACE_PER_SECOND, every message taking from the account's rate. Bodies stream both ways, so
 * event streams pass as they come. It counts the answers 429, which would fail a scenario for a
 * reason of the proxy's.
 */
async function startProxy(key: string, serviceOrigin: string) {
  const upstream = new URL(apiUrl());
  let nextSlot = 0;
  const counts = { requests: 0, rateLimited: 0 };
  const server = http.createServer(async (req, res) => {
    const now = Date.now();
    const at = Math.max(now, nextSlot);
    nextSlot = at + 1000 / PACE_PER_SECOND;
    if (at > now) await sleep(at - now);
    const port = (server.address() as AddressInfo).port;
    const headers = { ...req.headers, host: upstream.host, authorization: `Bearer ${key}` };
    if (headers.origin === `http://127.0.0.1:${port}` || headers.origin === `http://localhost:${port}`) headers.origin = serviceOrigin;
    counts.requests += 1;
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        if (answer.statusCode === 429) counts.rateLimited += 1;
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  /** A tool call's scenario records the call's result. */
  details?: { result?: { isError?: boolean; _meta?: { problem?: { code?: string } } } };
}

/** Each scenario's checks, from the suite's output folder (`<scenario>-<time>/checks.json`). */
function resultsIn(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const scenario = entry.name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '').replace(/^server-/, '');
    results.set(scenario, JSON.parse(readFileSync(path.join(dir, entry.name, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

const passed = (checks: Check[]) => checks.length > 0 && checks.every((c) => c.status !== 'FAILURE' && c.status !== 'WARNING');

test('the official MCP conformance suite: the scenarios of a server of tools pass, the rest fail only as listed, each with its reason', async (t) => {
  t.timeout(5 * 60_000);
  const account = await newAccount(100, 'conformance');
  // The service's own origin, as it names itself: its protected resource is `<PUBLIC_BASE_URL>/mcp`.
  const metadata = (await (await fetch(`${apiUrl()}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
  const proxy = await startProxy(account.apiKey, new URL(metadata.resource).origin);
  t.teardown(proxy.close);
  const outputDir = path.join(testEnv.outputDir(), 'mcp-conformance');

  const run = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [CONFORMANCE, 'server', '--url', `${proxy.url}/mcp`, '--expected-failures', EXPECTED_FAILURES, '--output-dir', outputDir],
      { cwd: ROOT, maxBuffer: 1 << 26, timeout: 4 * 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err.code as number | undefined) ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  const summary = run.output.slice(run.output.lastIndexOf('=== SUMMARY ==='));
  t.log(`${proxy.counts.requests} requests through the proxy\n${summary}`);
  t.is(proxy.counts.rateLimited, 0, 'no scenario was refused for the rate');
  t.is(run.code, 0, `the suite's verdict against its baseline (output in ${outputDir}):\n${summary}`);

  // The file's one list (`server:`, an item per line, its reason in comments); the suite read it already.
  const expected = { server: [...readFileSync(EXPECTED_FAILURES, 'utf8').matchAll(/^\s*-\s*([a-z0-9-]+)\s*$/gm)].map((m) => m[1]!) };
  const results = resultsIn(outputDir);
  t.true(results.size >= 30, `${results.size} scenarios ran`);
  for (const scenario of REQUIRED) {
    t.false(expected.server.includes(scenario), `${scenario} is never an expected failure`);
    t.true(passed(results.get(scenario) ?? []), `${scenario}: ${JSON.stringify(results.get(scenario))}`);
  }
  // Every expected failure ran and failed; everything else passed.
  for (const [scenario, checks] of results) t.is(passed(checks), !expected.server.includes(scenario), scenario);
  for (const scenario of expected.server) t.true(results.has(scenario), `${scenario} (listed) ran`);
  // What the expected failures' file says of those: their pass is this server's refusal.
  for (const scenario of VACUOUS) {
    t.like(results.get(scenario)?.[0]?.details?.result, { isError: true, _meta: { problem: { code: 'unknown_tool' } } }, scenario);
  }
});
