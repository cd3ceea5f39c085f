//! Which documented response statuses the test run actually produced: every status any operation
//! of /api/v1/openapi.json documents, against the API's own count of what it answered (its
//! /metrics histogram by route and status). `npm test` prints it after the whole suite and fails
//! on a documented status that no test produced, unless it is explained here.

/** Documented statuses no test should produce, and why. */
export const UNPRODUCIBLE: Readonly<Record<string, string>> = {
  '500': 'internal_error is the catch-all for bugs: the fuzz and chaos suites assert it never happens',
};

export interface StatusCoverage {
  /** Status -> how many operations document it. */
  documented: Map<string, number>;
  /** Status -> answers the API gave with it during the run. */
  produced: Map<string, number>;
  /** Documented, never produced, not explained. */
  missing: string[];
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

export function documentedStatuses(openapi: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }): Map<string, number> {
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

export async function statusCoverage(apiUrl: string): Promise<StatusCoverage> {
  const [openapi, metrics] = await Promise.all([
    fetch(`${apiUrl}/api/v1/openapi.json`).then((r) => r.json()),
    fetch(`${apiUrl}/metrics`).then((r) => r.text()),
  ]);
  const documented = documentedStatuses(openapi);
  const produced = producedStatuses(metrics);
  const missing = [...documented.keys()].filter((s) => !produced.has(s) && !(s in UNPRODUCIBLE)).sort();
  return { documented, produced, missing };
}

export function formatCoverage(c: StatusCoverage): string {
  const rows = [...c.documented.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, ops]) => {
      const answers = c.produced.get(status) ?? 0;
      const note = answers ? '' : UNPRODUCIBLE[status] ? `  (not produced: ${UNPRODUCIBLE[status]})` : '  MISSING';
      return `  ${status}  documented by ${String(ops).padStart(2)} operations, answered ${answers} times${note}`;
    });
  return `documented statuses produced by the run:\n${rows.join('\n')}`;
}
