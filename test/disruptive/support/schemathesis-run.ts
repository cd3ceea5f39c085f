//! Runs schemathesis (pinned in .tools/schemathesis by scripts/bootstrap.mjs) against the
//! stack's /api/v1/openapi.json, one run per credential (API key for the tools, owner token for
//! the account API, admin token for the operator and service routes), and reads every exchange
//! back from its HAR report: statuses, 500s, error answers that are not problem+json.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCHEMATHESIS = path.join(root, '.tools', 'schemathesis', 'bin', 'schemathesis');

/**
 * Checks left out, each for a reason: `positive_data_acceptance` expects every schema-valid
 * body to be accepted, but prechecks refuse what JSON Schema cannot say (a QR text too long for
 * its level, private targets); `unsupported_method` expects 405 on every path, while the
 * contract gives 405 to tool paths and 404 to any other unknown method and path.
 */
export const EXCLUDED_CHECKS = ['positive_data_acceptance', 'unsupported_method'];

/**
 * schemathesis.toml for every run. `not_a_server_error` stays on, but 502 `upstream_error` and
 * 504 `tool_timeout` are this API's documented answers for targets that cannot be reached or
 * are slow (a 500 or a 503 still fails it); invalid bodies may be refused with 413 too, since a
 * body over its limit is refused before it is parsed, whatever it holds. No cache directory in
 * the working tree.
 */
export const SCHEMATHESIS_CONFIG = `
[cache]
enabled = false

[checks.not_a_server_error]
expected-statuses = ["2xx", "3xx", "4xx", "502", "504"]

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
`;

/** schemathesis prints each failure with a curl line holding the whole body (megabytes at times). */
const clip = (text: string) =>
  text
    .split('\n')
    .map((line) => (line.length > 400 ? `${line.slice(0, 400)} ...` : line))
    .join('\n');

export interface FuzzGroup {
  name: string;
  /** Bearer credential sent with every request of the group. */
  token: string;
  includePathRegex?: string;
  excludePathRegex?: string;
  /** More schemathesis.toml for this group (real ids for its operations). */
  config?: string;
  /** Requests per second for this group, instead of FuzzOptions' `rate`. */
  rate?: string;
}

export interface FuzzOptions {
  apiUrl: string;
  groups: FuzzGroup[];
  /** Test cases per operation and phase (schemathesis -n). */
  maxExamples: number;
  phases: string;
  /** Requests per second; the stack's per-account limit answers 429 above it. */
  rate: string;
  reportDir: string;
  seed?: number;
  /**
   * Runs the groups at once, one process each, instead of one after another: each is held to
   * `rate`, so on a machine with cores to spare the run takes as long as its longest group. The
   * groups that share an account must together stay under its rate limit.
   */
  together?: boolean;
  log: (line: string) => void;
}

export interface Exchange {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: string;
}

export interface GroupResult {
  name: string;
  exitCode: number;
  /** schemathesis' own summary lines (test cases generated, failures). */
  summary: string;
  /** Its failure, error and warning listing, when it printed one. */
  failures: string;
  exchanges: Exchange[];
}

/** Runs in `cwd`: schemathesis keeps its example database (.schemathesis/) in the working directory. */
function run(command: string, args: string[], cwd: string, log: (line: string) => void): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => {
      log(`schemathesis exited ${code}`);
      resolve({ code: code ?? 1, output });
    });
  });
}

function readHar(dir: string): Exchange[] {
  const file = readdirSync(dir).find((f) => f.startsWith('har-') && f.endsWith('.json'));
  if (!file) return [];
  const har = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
    log: {
      entries: Array<{
        request: { method: string; url: string };
        response: { status: number; content: { mimeType?: string; text?: string } };
      }>;
    };
  };
  return har.log.entries.map((e) => ({
    method: e.request.method,
    path: new URL(e.request.url).pathname,
    status: e.response.status,
    contentType: e.response.content.mimeType ?? '',
    body: e.response.content.text ?? '',
  }));
}

export async function runSchemathesis(options: FuzzOptions): Promise<GroupResult[]> {
  mkdirSync(options.reportDir, { recursive: true });
  if (options.together) return Promise.all(options.groups.map((group) => runGroup(options, group)));
  const results: GroupResult[] = [];
  for (const group of options.groups) results.push(await runGroup(options, group));
  return results;
}

/** One group: its own schemathesis process, configuration and report directory. */
async function runGroup(options: FuzzOptions, group: FuzzGroup): Promise<GroupResult> {
  const dir = path.join(options.reportDir, group.name);
  mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'schemathesis.toml');
  writeFileSync(config, SCHEMATHESIS_CONFIG + (group.config ?? ''));
  const args = [
    '--config-file',
    config,
    'run',
    `${options.apiUrl}/api/v1/openapi.json`,
    '--url',
    options.apiUrl,
    '-H',
    `Authorization: Bearer ${group.token}`,
    '--max-examples',
    String(options.maxExamples),
    '--phases',
    options.phases,
    '--exclude-checks',
    EXCLUDED_CHECKS.join(','),
    '--rate-limit',
    group.rate ?? options.rate,
    '--request-timeout',
    '90',
    // One thread: CPython before 3.11.8/3.12.2 shares one AST recursion counter between
    // threads, and hypothesis parses sources (to describe lambdas) in every worker, so two
    // workers now and then die of `SystemError: AST constructor recursion depth mismatch`.
    '--workers',
    '1',
    '--no-shrink',
    '--suppress-health-check',
    'all',
    '--report',
    'har',
    '--report-dir',
    dir,
    ...(group.includePathRegex ? ['--include-path-regex', group.includePathRegex] : []),
    ...(group.excludePathRegex ? ['--exclude-path-regex', group.excludePathRegex] : []),
    ...(options.seed !== undefined ? ['--seed', String(options.seed)] : []),
  ];
  options.log(`schemathesis: ${group.name}`);
  const { code, output } = await run(SCHEMATHESIS, args, dir, (line) => options.log(`${group.name}: ${line}`));
  const summaryAt = output.indexOf('SUMMARY');
  const sections = ['FAILURES', 'ERRORS', 'WARNINGS'].map((name) => output.indexOf(name)).filter((i) => i >= 0);
  const failuresAt = sections.length ? Math.min(...sections) : -1;
  return {
    name: group.name,
    exitCode: code,
    summary: summaryAt >= 0 ? output.slice(summaryAt).trim() : output.slice(-3000),
    failures: failuresAt >= 0 && summaryAt > failuresAt ? clip(output.slice(failuresAt, summaryAt).trim()) : '',
    exchanges: readHar(dir),
  };
}

/** What the fuzz suites assert on, from every exchange of every group. */
export interface FuzzVerdict {
  cases: number;
  statuses: Record<string, number>;
  /** Exchanges that answered 500. */
  serverErrors: Exchange[];
  /** Error answers (4xx/5xx) that are not an RFC 9457 problem with a contract code. */
  notProblems: Exchange[];
}

export function judge(results: GroupResult[], isErrorCode: (code: unknown) => boolean): FuzzVerdict {
  const all = results.flatMap((r) => r.exchanges);
  const statuses: Record<string, number> = {};
  for (const e of all) statuses[e.status] = (statuses[e.status] ?? 0) + 1;
  const notProblems = all.filter((e) => {
    if (e.status < 400) return false;
    if (!e.contentType.startsWith('application/problem+json')) return true;
    try {
      const body = JSON.parse(e.body) as { status?: number; code?: unknown; type?: unknown; title?: unknown; requestId?: unknown };
      return (
        body.status !== e.status ||
        !isErrorCode(body.code) ||
        typeof body.type !== 'string' ||
        typeof body.title !== 'string' ||
        typeof body.requestId !== 'string'
      );
    } catch {
      return true;
    }
  });
  return { cases: all.length, statuses, serverErrors: all.filter((e) => e.status === 500), notProblems };
}
