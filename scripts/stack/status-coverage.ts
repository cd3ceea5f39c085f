//! Which documented response statuses the test run produced, and which test owns each.
//! Every status an operation of /api/v1/openapi.json documents has one owner: a test that
//! makes the stack's API answer it on purpose and asserts it, whatever the machine's pace. After
//! the run `npm test` compares the owners that ran with the API's own count of what it answered
//! (its /metrics histogram by route and status): an owner that ran and passed but whose status the
//! API never answered is a broken owner; a documented status with no owner fails the suite
//! (test/scripts/stack/status-coverage.test.ts checks the owners against the document and the test
//! files). Statuses that other tests happen to produce (fuzz, chaos, load) decide nothing here.
import path from 'node:path';

/** Documented statuses no test should produce, and why. */
export const UNPRODUCIBLE: Readonly<Record<string, string>> = {
  '500': 'internal_error is the catch-all for bugs: the fuzz and chaos suites assert it never happens',
};

/** The test that produces a status on purpose: its file (from the repository root) and its exact title. */
export interface StatusOwner {
  file: string;
  title: string;
}

/** The test that walks a tool call's error paths: the owner of 400, 413 and 415. */
const TOOL_CALL_ERRORS: StatusOwner = { file: 'test/api/tool-calls.test.ts', title: 'problem+json on every error path of a tool call' };

/** Each documented status's owner. A new documented status needs its test here (docs/DEVELOPING.md). */
export const STATUS_OWNERS: Readonly<Record<string, StatusOwner>> = {
  '200': { file: 'test/api/tool-calls.test.ts', title: 'a call answers the unwrapped output with request id and credit headers' },
  '201': { file: 'test/api/account.test.ts', title: 'the operator opens an account with an owner token and an API key shown once' },
  '202': {
    file: 'test/api/async-calls.test.ts',
    title:
      'respond-async: 202 at once with Location, Preference-Applied and Retry-After; the call then shows the output a synchronous call gives, charged once',
  },
  '204': {
    file: 'test/webhooks/endpoints.test.ts',
    title: 'deleting an endpoint answers 204, drops it from the list, and nothing more is posted to it',
  },
  '303': {
    file: 'test/identity/oidc.test.ts',
    title:
      'the providers are listed; a verified address of a person here signs them in with method oidc, through PKCE, a state and a nonce',
  },
  '304': {
    file: 'test/api/render-links.test.ts',
    title: 'a render link answers the image itself, charged once; a repeat is a free cache hit with Age and ETag; If-None-Match is 304',
  },
  '400': TOOL_CALL_ERRORS,
  '401': { file: 'test/api/tool-calls.test.ts', title: '401 for a missing, malformed, unknown or revoked key' },
  '402': { file: 'test/api/tool-calls.test.ts', title: '402 with balance and cost when the balance cannot pay, and nothing is charged' },
  '403': { file: 'test/api/tool-calls.test.ts', title: '403 when a credential of the wrong kind is used' },
  '404': {
    file: 'test/api/async-calls.test.ts',
    title: "another account's call is 404; unknown ids are 404; the owner token is refused on /calls/{id}",
  },
  '405': {
    file: 'test/api/render-links.test.ts',
    title: "a link is the account's call: 402 on a short balance, free; other methods 405; a tool without images 404",
  },
  '406': {
    file: 'test/mcp/mcp.test.ts',
    title: 'HTTP: no key is 401, a foreign Origin 403, GET 405, no event stream 406, each problem+json',
  },
  '409': {
    file: 'test/api/tool-calls.test.ts',
    title: 'an Idempotency-Key repeat replays the first answer and is charged once; another body is 409',
  },
  '410': { file: 'test/api/async-calls.test.ts', title: 'past its 24 hours the answer is 410 call_expired, with when it expired' },
  '413': TOOL_CALL_ERRORS,
  '415': TOOL_CALL_ERRORS,
  '422': {
    file: 'test/tools/http-request.test.ts',
    title: 'stack: the service itself and private addresses are refused with 422 and not charged',
  },
  // A key of one call a second sent twelve at once: refills cannot keep up on any machine.
  '429': {
    file: 'test/api/key-settings.test.ts',
    title: "a key over its own rate is 429 rate_limited with Retry-After; the account's other keys are not",
  },
  '502': { file: 'test/tools/http-request.test.ts', title: 'stack: an unreachable target is 502 and the balance is unchanged' },
  '503': {
    file: 'test/disruptive/outages.test.ts',
    title: 'with the database stopped, readiness answers 503 unavailable naming it; once it is started again, 200',
  },
  '504': {
    file: 'test/tools/website-screenshot-http.test.ts',
    title: "HTTP: a page that never answers is 504 tool_timeout at the tool's deadline, and not charged",
  },
};

/** How each documented status stands after a run. */
export type StatusVerdict =
  | 'produced' // its owner ran (or the run was whole) and the API answered it
  | 'unproducible' // explained in UNPRODUCIBLE
  | 'not judged' // a partial run without its owner
  | 'no owner' // documented, but no test owns it: a failure
  | 'owner did not produce it'; // its owner ran, yet the API never answered it: a failure

export interface StatusCoverage {
  /** Status -> how many operations document it. */
  documented: Map<string, number>;
  /** Status -> answers the API gave with it during the run. */
  produced: Map<string, number>;
  /** Status -> its verdict. */
  verdicts: Map<string, StatusVerdict>;
  /** Documented statuses whose verdict fails the run. */
  missing: string[];
  /** Why some statuses were not judged (a partial run), if any were not. */
  partial?: string;
}

/** Sums `http_request_duration_seconds_count{...,status="NNN"} N` lines by status. */
export function producedStatuses(metricsText: string): Map<string, number> {
  const produced = new Map<string, number>();
  for (const m of metricsText.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+(?:\.\d+)?)$/gm)) {
    const status = /status="(\d{3})"/.exec(m[1]!)?.[1];
    if (status) produced.set(status, (produced.get(status) ?? 0) + Number(m[2]));
  }
  return produced;
}

export function documentedStatuses(openapi: {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}): Map<string, number> {
  const documented = new Map<string, number>();
  for (const operations of Object.values(openapi.paths)) {
    for (const op of Object.values(operations)) {
      for (const status of Object.keys(op.responses ?? {})) {
        if (/^\d{3}$/.test(status)) documented.set(status, (documented.get(status) ?? 0) + 1);
      }
    }
  }
  return documented;
}

/**
 * Which owners' files ran, from the arguments `npm test` handed ava: all of them when none were
 * named; otherwise the named files and those under named folders. Nothing is judged when ava was
 * told to pick tests by title (`--match`), or when a glob names files: which tests ran is not
 * known here.
 */
export function ownersInRun(avaArgs: readonly string[], root: string): { ran: (owner: StatusOwner) => boolean; partial?: string } {
  const named = avaArgs.filter((arg) => !arg.startsWith('-'));
  if (avaArgs.some((arg) => arg === '-m' || arg.startsWith('--match')))
    return { ran: () => false, partial: 'tests were picked by title (--match)' };
  if (named.length === 0) return { ran: () => true };
  if (named.some((arg) => /[*?[{]/.test(arg))) return { ran: () => false, partial: 'files were named by a glob' };
  const targets = named.map((arg) => path.resolve(root, arg));
  const ran = (owner: StatusOwner) => {
    const file = path.resolve(root, owner.file);
    return targets.some((target) => file === target || file.startsWith(target + path.sep));
  };
  return { ran, partial: 'only the named files ran' };
}

/** The verdict of each documented status, from the document, the API's count and which owners ran. */
export function judgeCoverage(
  documented: Map<string, number>,
  produced: Map<string, number>,
  inRun: ReturnType<typeof ownersInRun>,
): StatusCoverage {
  const verdicts = new Map<string, StatusVerdict>();
  for (const status of documented.keys()) {
    const owner = STATUS_OWNERS[status];
    if (status in UNPRODUCIBLE) verdicts.set(status, 'unproducible');
    else if (!owner) verdicts.set(status, inRun.partial ? 'not judged' : 'no owner');
    else if (!inRun.ran(owner)) verdicts.set(status, 'not judged');
    else verdicts.set(status, produced.has(status) ? 'produced' : 'owner did not produce it');
  }
  const failing: StatusVerdict[] = ['no owner', 'owner did not produce it'];
  const missing = [...verdicts]
    .filter(([, v]) => failing.includes(v))
    .map(([s]) => s)
    .sort();
  const judgedAll = ![...verdicts.values()].includes('not judged');
  return { documented, produced, verdicts, missing, ...(judgedAll ? {} : { partial: inRun.partial }) };
}

/** `metricsUrl`: the API's operator port (METRICS_PORT), where its `/metrics` is served. */
export async function statusCoverage(
  apiUrl: string,
  metricsUrl: string,
  avaArgs: readonly string[] = [],
  root = process.cwd(),
): Promise<StatusCoverage> {
  const [openapi, metrics] = await Promise.all([
    fetch(`${apiUrl}/api/v1/openapi.json`).then((r) => r.json()),
    fetch(`${metricsUrl}/metrics`).then((r) => r.text()),
  ]);
  return judgeCoverage(documentedStatuses(openapi), producedStatuses(metrics), ownersInRun(avaArgs, root));
}

export function formatCoverage(c: StatusCoverage): string {
  const rows = [...c.documented.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, ops]) => {
      const answers = c.produced.get(status) ?? 0;
      const verdict = c.verdicts.get(status)!;
      const owner = STATUS_OWNERS[status];
      const why =
        verdict === 'unproducible'
          ? `not produced on purpose: ${UNPRODUCIBLE[status]}`
          : verdict === 'no owner'
            ? 'NO OWNER: no test produces it on purpose'
            : verdict === 'owner did not produce it'
              ? `OWNER DID NOT PRODUCE IT: ${owner!.file} › ${owner!.title}`
              : verdict === 'not judged'
                ? `not judged: its owner did not run${owner ? ` (${owner.file})` : ''}`
                : `owner ${owner!.file} › ${owner!.title}`;
      return `  ${status}  documented by ${String(ops).padStart(2)} operations, answered ${String(answers).padStart(4)} times  ${why}`;
    });
  const partial = c.partial ? `\n(a partial run: ${c.partial}; a status is judged only when its owner ran)` : '';
  return `documented statuses, each with the test that produces it on purpose:\n${rows.join('\n')}${partial}`;
}
