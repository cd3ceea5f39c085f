//! Process configuration: read and validated once from the environment, with documented
//! defaults. docs/CONFIGURATION.md lists every variable (test/docs/configuration.test.ts checks it).
import os from 'node:os';
import { DEFAULT_ENDPOINT_CONCURRENCY, MAX_ENDPOINT_CONCURRENCY } from '../contracts/webhook-policy.js';
import { ConfigError, bool, int, intIn, list, oneOf, type Env } from './config-values.js';
import {
  parseMailFrom,
  parseOidcProviders,
  parseSmtpUrl,
  stripeConfig,
  tracingConfig,
  type OidcProvider,
  type StripeConfig,
  type TracingConfig,
} from './config-services.js';
import { temporalSettings, type TemporalSettings } from './config-temporal.js';

export { ConfigError } from './config-values.js';
export { temporalConnectOptions, temporalSettings, type TemporalSettings, type TemporalTls } from './config-temporal.js';
export {
  parseMailFrom,
  parseOidcProviders,
  parseSmtpUrl,
  s3Settings,
  TRACE_SAMPLERS,
  type OidcProvider,
  type S3Settings,
  type StripeConfig,
  type TraceSampler,
  type TracingConfig,
} from './config-services.js';

/**
 * The browser the pool drives: Chromium's headless shell (Debian's `chromium-headless-shell`), the
 * same Blink without the desktop browser around it: it opens a capture's context and page,
 * navigates and encodes several times faster than the full `chromium` (docs/BENCHMARKS.md).
 */
const DEFAULT_CHROMIUM_PATH = '/usr/lib/chromium/chromium-headless-shell';

/** The browser binary: `CHROMIUM_PATH`, else the headless shell. Also read by tests and benches, which need no full config. */
export function chromiumPath(env: Env = process.env): string {
  return env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
}

export interface Config {
  /** API port. `PORT`, default 8080. */
  port: number;
  /** External base URL used in docs links and problem `type`. `PUBLIC_BASE_URL`, default `http://localhost:<port>`. */
  publicBaseUrl: string;
  /** Enables the operator API when set. `ADMIN_TOKEN`. */
  adminToken?: string;
  /** MongoDB connection string. `MONGODB_URL`. */
  mongodbUrl: string;
  /**
   * Where big outputs wait for their answer (lib/blob-store.ts): `file:///dir` (a directory the
   * API and every worker share), `s3://bucket[/prefix]`, or unset for the database. `BLOB_STORE_URL`.
   */
  blobStoreUrl?: string;
  /**
   * The Temporal frontend and how to reach it (lib/config-temporal.ts): `TEMPORAL_ADDRESS`,
   * `TEMPORAL_NAMESPACE`, TLS (`TEMPORAL_TLS_CA`, `TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY`,
   * `TEMPORAL_TLS_SERVER_NAME`) and `TEMPORAL_API_KEY`. Every connection of the process (the API's
   * client and schedules, a worker's, its backlog metric) is made with temporalConnectOptions of it.
   */
  temporal: TemporalSettings;
  /** 32-byte key for secrets at rest, base64 or hex. `SECRET_KEY`. */
  secretKey: Buffer;
  /** Credits of a new account. `FREE_CREDITS`, default 100. */
  freeCredits: number;
  /** Whether people may sign themselves up (`open`) or only join by invitation and the operator (`off`). `SIGNUP`, default open. */
  signup: 'open' | 'off';
  /**
   * Hours a dashboard session lives without use before it ends. `SESSION_IDLE_HOURS`, default 12:
   * a working day away ends it (OWASP's session guidance; NIST SP 800-63B-4 asks at most 1 h for
   * AAL2, so lower it where the dashboard must meet AAL2).
   */
  sessionIdleHours: number;
  /** Days a session lives at most, however busy, before its person signs in again. `SESSION_MAX_DAYS`, default 7. */
  sessionMaxDays: number;
  /**
   * OpenID Connect providers people may sign in through (domain/identity/oidc.ts), and that an
   * account may require of its members. `OIDC_PROVIDERS`: a JSON array of
   * `{ "id", "issuer", "clientId", "clientSecret", "name" }`; default none. Register
   * `PUBLIC_BASE_URL/api/v1/auth/oidc/<id>/callback` as the redirect URI with each.
   */
  oidcProviders: OidcProvider[];
  /** Per-account calls per second (burst twice that). `RATE_LIMIT_PER_SECOND`, default 20. */
  rateLimitPerSecond: number;
  /**
   * Proxies in front of the API that append the client's address to `X-Forwarded-For` (the load
   * balancer: 1). The client address (a key's `allowedIps`, `lastUsedIp`, the audit log) is the
   * entry that many hops from the right; 0 ignores the header, so no caller can choose it.
   * `TRUSTED_PROXY_HOPS`, default 0.
   */
  trustedProxyHops: number;
  /** Days the audit log keeps an entry (the sweeper deletes older ones). `AUDIT_RETENTION_DAYS`, default 400. */
  auditRetentionDays: number;
  /** CIDRs (each with optional `:port`) the target guard lets through. `TARGET_ALLOWLIST`. */
  targetAllowlist: string[];
  /** Resolvers used by every tool, `ip[:port]`. `DNS_SERVERS`, default the system's. */
  dnsServers: string[];
  /** Allow `localhost` webhook URLs. `WEBHOOKS_ALLOW_LOCALHOST`, default false. */
  webhooksAllowLocalhost: boolean;
  /**
   * Delivery attempts of one webhook endpoint running at once (fewer as its failures near the
   * disable). `WEBHOOK_ENDPOINT_CONCURRENCY`, 1-64, default 16 (contracts/webhook-policy.ts). Read by the
   * core worker as each run of an endpoint's workflow starts.
   */
  webhookEndpointConcurrency: number;
  /**
   * The mail server the core workers send through (workflows/mail.ts): `smtp://host:port`
   * (STARTTLS when offered), `smtps://user:pass@host:465`. `SMTP_URL`; unset, mail is not
   * configured: each mail is logged as not sent (its id only) and dropped, and the core worker
   * says so in one warning line at start. `npm start` and `npm test` point it at their MailDev.
   */
  smtpUrl?: string;
  /**
   * The sender of every mail, `Name <address>` or a bare address. `MAIL_FROM`, default
   * `Utility Tools <no-reply@HOST>` with PUBLIC_BASE_URL's host name.
   */
  mailFrom: string;
  /** Market data endpoints. `GOLD_FEED_URL`, `FX_FEED_URL`. */
  goldFeedUrl?: string;
  fxFeedUrl?: string;
  /**
   * How ping probes: `icmp` (the system `ping`, needs raw or ping sockets), `tcp` (a timed
   * handshake to the input port) or `auto` (ICMP when this process may send it, else TCP).
   * `PING_METHOD`, default auto. Force `tcp` where ICMP is filtered on the way out.
   */
  pingMethod: 'auto' | 'icmp' | 'tcp';
  /** Concurrent activities per pool worker. */
  browserConcurrency: number;
  /** The Chromium binary the browser pool drives. `CHROMIUM_PATH`, default the headless shell (chromiumPath). */
  chromiumPath: string;
  /**
   * Chromium's own sandbox. `CHROMIUM_SANDBOX`, default true. It needs user namespaces, which a
   * container's default seccomp profile refuses without capabilities: containers get
   * deploy/seccomp/sandboxes.json (docs/OPERATING.md#seccomp). False only where no such profile can
   * be given. As root it is always off: Chromium refuses it.
   */
  chromiumSandbox: boolean;
  /** Captures one browser serves before the pool replaces it. `BROWSER_RECYCLE_AFTER`, default 200; lower it if Chromium's memory grows. */
  browserRecycleAfter: number;
  cpuConcurrency: number;
  networkConcurrency: number;
  /**
   * Items of one account's batches that run at once, all its batches together: what one account's
   * bulk work may take of the pools beside everyone's single calls. `BATCH_CONCURRENCY`, default 4
   * (two cores' worth of hash-text beside other accounts' calls); raise it with the pools' replicas.
   */
  batchConcurrency: number;
  /**
   * How much later a batch item's successor starts while single calls run on its worker (0: never
   * later), so bulk work yields the machine to calls someone waits on; alone, a batch runs at full
   * speed. `BATCH_YIELD_MS`, default 250.
   */
  batchYieldMs: number;
  /**
   * The shortest interval a monitor's schedule may have, in seconds (domain/monitors/).
   * `MONITOR_MIN_INTERVAL_S`, default 60; tests lower it to see runs within seconds.
   */
  monitorMinIntervalS: number;
  /** Monitors one account may have. `MONITORS_PER_ACCOUNT`, default 100. */
  monitorsPerAccount: number;
  /** Threads of a network worker that parse fetched pages and PDFs (web-scrape, seo-meta, broken-links, pdf-metadata). `READING_THREADS`, default 2. */
  readingThreads: number;
  /** Warm LibreOffice listeners of a cpu worker, i.e. word-to-pdf conversions at once (~150 MB each). `OFFICE_LISTENERS`, default 2. */
  officeListeners: number;
  /** Hard limit of one conversion; past it the listener is killed and replaced. `OFFICE_CONVERSION_TIMEOUT_MS`, default 30000. */
  officeConversionTimeoutMs: number;
  /**
   * How LibreOffice is kept offline. `namespace`: listeners run in their own network namespace
   * (needs `unshare`: root, or unprivileged user namespaces, which a container gets from the seccomp
   * profile deploy/seccomp/sandboxes.json). `none`: only for deployments that cut the cpu worker's
   * LibreOffice off the network by other means. `OFFICE_NETWORK_ISOLATION`, default namespace.
   */
  officeNetworkIsolation: 'namespace' | 'none';
  /** Threads running the image-upscale model (300-500 MB each while working). `UPSCALE_THREADS`, default 1. */
  upscaleThreads: number;
  /** pino level. `LOG_LEVEL`, default info. */
  logLevel: string;
  /**
   * Where this process serves the Temporal SDK's Prometheus metrics (task queue schedule-to-start
   * latency, slots, polls) and the per-tool durations, at `/metrics`. `METRICS_PORT`, default
   * unset: not served. `METRICS_HOST`, default 0.0.0.0 (a scraper reaches a container from outside).
   */
  metricsPort?: number;
  metricsHost: string;
  /** Where traces go and how many are kept (lib/tracing.ts); undefined: tracing off, nothing installed. */
  tracing?: TracingConfig;
  /** Stripe, for credit purchases and auto-recharge (domain/billing/); undefined: purchases off. */
  stripe?: StripeConfig;
}

export function parseSecretKey(raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError('SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 1);
  const cores = Math.max(1, os.availableParallelism());
  if (!env.MONGODB_URL) throw new ConfigError('MONGODB_URL is required (npm start sets it for the local database)');
  if (!env.SECRET_KEY) throw new ConfigError('SECRET_KEY is required (npm start generates one into .data/)');
  return {
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    adminToken: env.ADMIN_TOKEN || undefined,
    mongodbUrl: env.MONGODB_URL,
    blobStoreUrl: env.BLOB_STORE_URL || undefined,
    temporal: temporalSettings(env),
    secretKey: parseSecretKey(env.SECRET_KEY),
    freeCredits: int(env, 'FREE_CREDITS', 100),
    signup: oneOf(env, 'SIGNUP', ['open', 'off'] as const, 'open'),
    sessionIdleHours: int(env, 'SESSION_IDLE_HOURS', 12, 1),
    sessionMaxDays: int(env, 'SESSION_MAX_DAYS', 7, 1),
    oidcProviders: parseOidcProviders(env.OIDC_PROVIDERS),
    rateLimitPerSecond: int(env, 'RATE_LIMIT_PER_SECOND', 20, 1),
    trustedProxyHops: int(env, 'TRUSTED_PROXY_HOPS', 0),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 400, 1),
    targetAllowlist: list(env, 'TARGET_ALLOWLIST'),
    dnsServers: list(env, 'DNS_SERVERS'),
    webhooksAllowLocalhost: bool(env, 'WEBHOOKS_ALLOW_LOCALHOST', false),
    webhookEndpointConcurrency: intIn(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', DEFAULT_ENDPOINT_CONCURRENCY, 1, MAX_ENDPOINT_CONCURRENCY),
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    mailFrom: parseMailFrom(env.MAIL_FROM, env.PUBLIC_BASE_URL),
    goldFeedUrl: env.GOLD_FEED_URL || undefined,
    fxFeedUrl: env.FX_FEED_URL || undefined,
    pingMethod: oneOf(env, 'PING_METHOD', ['auto', 'icmp', 'tcp'] as const, 'auto'),
    browserConcurrency: int(env, 'BROWSER_CONCURRENCY', 2, 1),
    chromiumPath: chromiumPath(env),
    chromiumSandbox: bool(env, 'CHROMIUM_SANDBOX', true),
    browserRecycleAfter: int(env, 'BROWSER_RECYCLE_AFTER', 200, 1),
    cpuConcurrency: int(env, 'CPU_CONCURRENCY', cores, 1),
    networkConcurrency: int(env, 'NETWORK_CONCURRENCY', 50, 1),
    batchConcurrency: int(env, 'BATCH_CONCURRENCY', 4, 1),
    batchYieldMs: int(env, 'BATCH_YIELD_MS', 250),
    monitorMinIntervalS: int(env, 'MONITOR_MIN_INTERVAL_S', 60, 1),
    monitorsPerAccount: int(env, 'MONITORS_PER_ACCOUNT', 100, 1),
    readingThreads: int(env, 'READING_THREADS', 2, 1),
    officeListeners: int(env, 'OFFICE_LISTENERS', 2, 1),
    officeConversionTimeoutMs: int(env, 'OFFICE_CONVERSION_TIMEOUT_MS', 30_000, 1_000),
    officeNetworkIsolation: oneOf(env, 'OFFICE_NETWORK_ISOLATION', ['namespace', 'none'] as const, 'namespace'),
    upscaleThreads: int(env, 'UPSCALE_THREADS', 1, 1),
    logLevel: env.LOG_LEVEL || 'info',
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 1) : undefined,
    metricsHost: env.METRICS_HOST || '0.0.0.0',
    tracing: tracingConfig(env),
    stripe: stripeConfig(env),
  };
}
