//! What `npm start` prints once the service is up (README.md shows it; a test holds the two
//! together), and the operator ports it gives the API and the workers.

/** `npm start`'s operator port of the API (compose's METRICS_PORT); the workers' is the next one. */
export const LOCAL_METRICS_PORT = 9464;

/**
 * The operator ports `npm start` gives its processes (`/metrics`, and the workers' `/healthz`), by
 * the names startApps knows them by: the API on METRICS_PORT (default LOCAL_METRICS_PORT), the
 * process of every worker pool on the port after it.
 */
export function localOperatorPorts(env: NodeJS.ProcessEnv): { api: number; workers: number } {
  const text = env.METRICS_PORT || String(LOCAL_METRICS_PORT);
  const api = Number(text);
  if (!/^\d+$/.test(text) || api < 1 || api > 65534)
    throw new Error(`METRICS_PORT must be a port from 1 to 65534 (the workers take the next one), not "${text}"`);
  return { api, workers: api + 1 };
}

/** How the traces line reads: the local Jaeger and its state, or the collector the user named. */
export type TracesFact = { jaegerUrl: string; state: 'up' | 'not started' | 'being built' } | { collector: string };

export interface StartFacts {
  startedS: number;
  apiPort: number;
  /** The Temporal UI of the local dev server, else the address TEMPORAL_ADDRESS named. */
  temporal: { uiUrl: string } | { address: string };
  /** The local SecantusDB and where its data lives, else MONGODB_URL (redacted). */
  database: { url: string; dataDir: string } | { redactedUrl: string };
  /** The file the generated admin token is kept in, relative; undefined when ADMIN_TOKEN was given. */
  adminTokenFile?: string;
  /** The mail line startLocalMail made. */
  mailLine: string;
  traces: TracesFact;
  /** Stripe's mode when payments are on. */
  payments?: 'live' | 'test';
  /** Each process's operator port (startApps' `operatorUrls`): `api`, `workers`. */
  operatorUrls: Record<string, string>;
  /** The log directory, relative. */
  logDir: string;
}

const TRACES_STATE = {
  up: 'up',
  'not started': 'not started: see the line above',
  'being built': 'being built, minutes the first time: a line says when it is up; calls until then are not kept',
} as const;

/** The summary `npm start` prints, line by line. */
export function startSummary(facts: StartFacts): string[] {
  const api = `http://localhost:${facts.apiPort}`;
  const { operatorUrls: ops } = facts;
  return [
    `Utility Tools is running (started in ${facts.startedS.toFixed(1)} s).`,
    `  API          ${api}  (reference: /docs, OpenAPI: /api/v1/openapi.json)`,
    `  Dashboard    ${api}/dashboard  (sign up at /dashboard/sign-up: the mail is in the Inbox)`,
    'uiUrl' in facts.temporal ? `  Temporal UI  ${facts.temporal.uiUrl}` : `  Temporal     ${facts.temporal.address} (TEMPORAL_ADDRESS)`,
    'dataDir' in facts.database
      ? `  Database     ${facts.database.url} (SecantusDB, data in ${facts.database.dataDir})`
      : `  Database     ${facts.database.redactedUrl} (MONGODB_URL)`,
    facts.adminTokenFile
      ? `  Admin token  ${facts.adminTokenFile}  (curl -H "Authorization: Bearer $(cat ${facts.adminTokenFile})" ...)`
      : '  Admin token  from ADMIN_TOKEN',
    facts.mailLine,
    'jaegerUrl' in facts.traces
      ? `  Traces       ${facts.traces.jaegerUrl}/api/traces/<traceId>  (Jaeger, every call; ${TRACES_STATE[facts.traces.state]})`
      : `  Traces       ${facts.traces.collector} (OTEL_EXPORTER_OTLP_ENDPOINT)`,
    // Prometheus text on this machine only (127.0.0.1), never on the public port.
    `  Metrics      ${ops.api}/metrics (API), ${ops.workers}/metrics (workers; their health: ${ops.workers}/healthz)`,
    facts.payments
      ? `  Payments     Stripe (${facts.payments} mode); its events to ${api}/api/v1/billing/stripe-webhook`
      : '  Payments     off: set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to sell credit packs (docs/OPERATING.md)',
    `  Logs         ${facts.logDir}/`,
    'Press Ctrl-C to stop.',
  ];
}
