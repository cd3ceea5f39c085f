//! What a process tells its operator, on METRICS_HOST:METRICS_PORT and never on the public port:
//! `/metrics` for Prometheus (the Temporal SDK's metrics, which its runtime serves on a loopback
//! port of its own and this passes through, then the process's own, prom-client's) and `/healthz`
//! (200 `{ status: 'ok', checks }`, or 503 problem+json `unavailable` naming each check that
//! failed; `?exclude=<name>[,<name>]` leaves checks out, as Kubernetes' own `/livez?exclude=` does, so
//! a liveness probe can ignore a dependency whose outage a restart would not mend). Anything else is 404.
import http from 'node:http';
import type { Registry } from 'prom-client';
import { ERRORS } from '../contracts/errors.js';
import type { Logger } from './logger.js';

/** A check of the health endpoint: resolves `null` when well, else what is wrong, in a few words. */
export type HealthCheck = () => Promise<string | null>;

/** How long a check may take before it counts as failed: a dependency that does not answer is down. */
export const HEALTH_CHECK_MS = 3_000;

export interface OperatorPortOptions {
  host: string;
  port: number;
  /** The Temporal runtime's own exporter (`http://127.0.0.1:<port>/metrics`), passed through first. */
  sdkMetricsUrl?: string;
  /** The process's own metrics (the API's requests and charges). */
  registry?: Registry;
  /** `/healthz`'s checks by name, as they are now; without them it answers 404 (the API's health is its /readyz). */
  health?: () => Record<string, HealthCheck>;
  log: Logger;
}

export interface OperatorPort {
  url: string;
  close(): Promise<void>;
}

/** `check()`, a rejection or no answer within HEALTH_CHECK_MS being what is wrong. */
async function bounded(check: HealthCheck): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${HEALTH_CHECK_MS / 1000} s`), HEALTH_CHECK_MS);
  });
  try {
    return await Promise.race([check().catch((err: Error) => err.message || String(err)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every check at once: `ok`, or what is wrong, by name. */
export async function healthOf(checks: Record<string, HealthCheck>): Promise<{ healthy: boolean; checks: Record<string, string> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => bounded(checks[name]!)));
  const report = Object.fromEntries(names.map((name, i) => [name, results[i] ?? 'ok']));
  return { healthy: results.every((r) => r === null), checks: report };
}

async function metricsText(options: OperatorPortOptions): Promise<string> {
  const parts: string[] = [];
  if (options.sdkMetricsUrl) {
    const res = await fetch(options.sdkMetricsUrl, { signal: AbortSignal.timeout(HEALTH_CHECK_MS) });
    if (!res.ok) throw new Error(`the Temporal runtime's metrics answered ${res.status}`);
    parts.push(await res.text());
  }
  if (options.registry) parts.push(await options.registry.metrics());
  return parts.map((p) => (p.endsWith('\n') || p === '' ? p : `${p}\n`)).join('');
}

function send(res: http.ServerResponse, status: number, type: string, body: string) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

function sendProblem(
  res: http.ServerResponse,
  status: number,
  code: 'not_found' | 'unavailable' | 'internal_error' | 'validation_failed',
  detail: string,
  extras: object = {},
) {
  const body = { ...extras, type: `about:blank#${code}`, title: ERRORS[code].title, status, detail, code };
  send(res, status, 'application/problem+json', JSON.stringify(body));
}

export async function startOperatorPort(options: OperatorPortOptions): Promise<OperatorPort> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendProblem(res, 404, 'not_found', 'Only GET /metrics and /healthz are served here.');
    if (path === '/metrics') {
      metricsText(options).then(
        (text) => send(res, 200, 'text/plain; version=0.0.4; charset=utf-8', text),
        (err: Error) => {
          options.log.warn({ err }, 'metrics: could not be gathered');
          sendProblem(res, 500, 'internal_error', 'The metrics could not be gathered.');
        },
      );
      return;
    }
    if (path === '/healthz' && options.health) {
      const checks = options.health();
      const excluded = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').getAll('exclude').flatMap((v) => v.split(','));
      // A misspelt name must not pass for an excluded check: the probe would keep what it meant to drop.
      const unknown = excluded.filter((name) => !(name in checks));
      if (unknown.length)
        return sendProblem(
          res,
          400,
          'validation_failed',
          `No such check: ${unknown.join(', ')} (checks: ${Object.keys(checks).join(', ')}).`,
        );
      for (const name of excluded) delete checks[name];
      healthOf(checks).then(
        ({ healthy, checks }) => {
          if (healthy) return send(res, 200, 'application/json', JSON.stringify({ status: 'ok', checks }));
          const wrong = Object.entries(checks)
            .filter(([, v]) => v !== 'ok')
            .map(([k, v]) => `${k}: ${v}`);
          sendProblem(res, 503, 'unavailable', `Not healthy: ${wrong.join('; ')}.`, { checks });
        },
        (err) => {
          options.log.warn({ err }, 'health: could not be checked');
          sendProblem(res, 503, 'unavailable', 'The health checks could not be run.');
        },
      );
      return;
    }
    sendProblem(res, 404, 'not_found', 'Only GET /metrics and /healthz are served here.');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (err) => options.log.error({ err }, 'operator port failed'));
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
