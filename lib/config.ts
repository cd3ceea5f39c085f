//! Process configuration: read and validated once from the environment, with documented
//! defaults. docs/CONFIGURATION.md lists every variable (test/docs/configuration.test.ts checks it).
import os from 'node:os';
import { DEFAULT_ENDPOINT_CONCURRENCY, MAX_ENDPOINT_CONCURRENCY } from './webhook-policy.js';

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
  /** Temporal frontend. `TEMPORAL_ADDRESS`, default 127.0.0.1:7233. */
  temporalAddress: string;
  /** `TEMPORAL_NAMESPACE`, default `default`. */
  temporalNamespace: string;
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
   * disable). `WEBHOOK_ENDPOINT_CONCURRENCY`, 1-64, default 16 (lib/webhook-policy.ts). Read by the
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
   * Chromium's own sandbox. `CHROMIUM_SANDBOX`, default true. False only where the container is the
   * sandbox and Chromium's cannot start: it needs user namespaces, which a pod under Kubernetes'
   * `restricted` Pod Security profile (seccomp RuntimeDefault, no capabilities) may not create
   * (docs/OPERATING.md#kubernetes-chromium). As root it is always off: Chromium refuses it.
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
  /** Threads of a network worker that parse fetched pages and PDFs (web-scrape, seo-meta, broken-links, pdf-metadata). `READING_THREADS`, default 2. */
  readingThreads: number;
  /** Warm LibreOffice listeners of a cpu worker, i.e. word-to-pdf conversions at once (~150 MB each). `OFFICE_LISTENERS`, default 2. */
  officeListeners: number;
  /** Hard limit of one conversion; past it the listener is killed and replaced. `OFFICE_CONVERSION_TIMEOUT_MS`, default 30000. */
  officeConversionTimeoutMs: number;
  /**
   * How LibreOffice is kept offline. `namespace`: listeners run in their own network namespace
   * (needs `unshare`: root, or unprivileged user namespaces). `none`: only for deployments that
   * cut the cpu worker's LibreOffice off the network by other means. `OFFICE_NETWORK_ISOLATION`, default namespace.
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

export interface StripeConfig {
  /** `STRIPE_SECRET_KEY` (`sk_test_...`, `sk_live_...` or a restricted `rk_...`). Never logged. */
  secretKey: string;
  /** `STRIPE_WEBHOOK_SECRET` (`whsec_...`): verifies the `Stripe-Signature` of Stripe's events. Never logged. */
  webhookSecret: string;
  /** `STRIPE_API_URL`: Stripe's API elsewhere (stripe-mock in tests); unset: Stripe's own. */
  apiUrl?: URL;
}

/** Payments are on when both keys are set; one without the other is a mistake said at start. */
function stripeConfig(env: Env): StripeConfig | undefined {
  const secretKey = env.STRIPE_SECRET_KEY || undefined;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET || undefined;
  const rawUrl = env.STRIPE_API_URL || undefined;
  if (!secretKey && !webhookSecret) {
    if (rawUrl) throw new ConfigError('STRIPE_API_URL is set but STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are not');
    return undefined;
  }
  if (!secretKey || !webhookSecret)
    throw new ConfigError('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together (or neither: purchases off)');
  // The messages name the shape expected, never the value given: these are secrets.
  if (!/^(sk|rk)_(test|live)_\S+$/.test(secretKey))
    throw new ConfigError('STRIPE_SECRET_KEY must be a Stripe secret key (sk_test_..., sk_live_... or rk_...)');
  if (!/^whsec_\S+$/.test(webhookSecret)) throw new ConfigError('STRIPE_WEBHOOK_SECRET must be a webhook signing secret (whsec_...)');
  if (rawUrl && !/^https?:\/\/[^/]/.test(rawUrl))
    throw new ConfigError(`STRIPE_API_URL must be an http:// or https:// URL, got "${rawUrl}"`);
  return { secretKey, webhookSecret, ...(rawUrl ? { apiUrl: new URL(rawUrl) } : {}) };
}

/** An OpenID Connect provider of OIDC_PROVIDERS. */
export interface OidcProvider {
  /** Its id in the service's URLs (`/api/v1/auth/oidc/<id>/start`) and in an account's sign-in policy: `[a-z0-9-]`, 1-32 characters. */
  id: string;
  /** The issuer: `https://...`, whose `/.well-known/openid-configuration` describes it (`http://` only for a loopback address, in development and tests). */
  issuer: string;
  clientId: string;
  /** The client secret (client_secret_basic); never logged or shown. */
  clientSecret: string;
  /** What the sign-in button and refusals call it ("Acme SSO"); default the id. */
  name: string;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** OIDC_PROVIDERS checked: a JSON array of providers with distinct ids. A message never repeats a secret. */
export function parseOidcProviders(raw: string | undefined): OidcProvider[] {
  if (!raw || !raw.trim()) return [];
  const fail = (why: string): never => {
    throw new ConfigError(`OIDC_PROVIDERS must be a JSON array of { "id", "issuer", "clientId", "clientSecret", "name" }: ${why}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail('it is not JSON');
  }
  if (!Array.isArray(parsed)) return fail('it is not an array');
  const seen = new Set<string>();
  return parsed.map((entry: unknown, i): OidcProvider => {
    const p = (entry ?? {}) as Record<string, unknown>;
    const at = `entry ${i}`;
    if (typeof p.id !== 'string' || !/^[a-z0-9-]{1,32}$/.test(p.id)) fail(`${at}: "id" must be 1-32 of a-z, 0-9 and -`);
    if (seen.has(p.id as string)) fail(`${at}: the id "${p.id}" is used twice`);
    seen.add(p.id as string);
    let issuer: URL | undefined;
    try {
      issuer = new URL(String(p.issuer));
    } catch {
      fail(`${at} (${p.id}): "issuer" is not a URL`);
    }
    if (issuer!.protocol !== 'https:' && !(issuer!.protocol === 'http:' && LOOPBACK_HOST.test(issuer!.hostname)))
      fail(`${at} (${p.id}): "issuer" must be https:// (http:// only on a loopback address)`);
    if (typeof p.clientId !== 'string' || !p.clientId) fail(`${at} (${p.id}): "clientId" is required`);
    if (typeof p.clientSecret !== 'string' || !p.clientSecret) fail(`${at} (${p.id}): "clientSecret" is required`);
    if (p.name !== undefined && (typeof p.name !== 'string' || !p.name.trim() || p.name.length > 60))
      fail(`${at} (${p.id}): "name" must be 1-60 characters`);
    return {
      id: p.id as string,
      issuer: String(p.issuer),
      clientId: p.clientId as string,
      clientSecret: p.clientSecret as string,
      name: (p.name as string | undefined)?.trim() || (p.id as string),
    };
  });
}

/** The standard OpenTelemetry samplers (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = [
  'parentbased_traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'traceidratio',
  'always_on',
  'always_off',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export interface TracingConfig {
  /** OTLP/HTTP traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  tracesUrl: string;
  /** `OTEL_TRACES_SAMPLER`, default parentbased_traceidratio. */
  sampler: TraceSampler;
  /** The ratio of the `*traceidratio` samplers, 0..1. `OTEL_TRACES_SAMPLER_ARG`, default 0.1. */
  ratio: number;
  /** `OTEL_SERVICE_NAME`; default `utility-tools-<role>` per process (api, worker). */
  serviceName?: string;
}

/** Traces are on only when an endpoint is configured (and OTEL_SDK_DISABLED is not true): off costs nothing. */
function tracingConfig(env: Env): TracingConfig | undefined {
  if (bool(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base && `${base.replace(/\/+$/, '')}/v1/traces`);
  if (!tracesUrl) return undefined;
  if (!/^https?:\/\/[^/]/.test(tracesUrl))
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (OTLP over HTTP), got "${tracesUrl}"`);
  const rawRatio = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = rawRatio === undefined || rawRatio === '' ? 0.1 : Number(rawRatio);
  if (!(ratio >= 0 && ratio <= 1)) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got "${rawRatio}"`);
  return {
    tracesUrl,
    sampler: oneOf(env, 'OTEL_TRACES_SAMPLER', TRACE_SAMPLERS, 'parentbased_traceidratio'),
    ratio,
    serviceName: env.OTEL_SERVICE_NAME || undefined,
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function intIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = int(env, name, fallback, min);
  if (value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${env[name]}"`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<const T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** SMTP_URL checked: smtp: or smtps: with a host. The message never repeats a password. */
export function parseSmtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    throw new ConfigError(
      `SMTP_URL must be smtp://host:port or smtps://user:password@host:port, got "${raw.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}"`,
    );
  }
  return raw;
}

function hostOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).hostname : undefined;
  } catch {
    return undefined;
  }
}

/** MAIL_FROM checked: `Name <local@domain>` or `local@domain`; the default names the service's own host. */
export function parseMailFrom(raw: string | undefined, publicBaseUrl: string | undefined): string {
  if (!raw) return `Utility Tools <no-reply@${hostOf(publicBaseUrl) || 'localhost'}>`;
  const address = /^[^<>\r\n]*<([^<>\s]+)>\s*$/.exec(raw)?.[1] ?? raw.trim();
  if (/[\r\n]/.test(raw) || !/^[^\s@<>]+@[^\s@<>]+$/.test(address))
    throw new ConfigError(`MAIL_FROM must be an address or Name <address>, got "${raw}"`);
  return raw.trim();
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
    temporalAddress: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
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

/** How an `s3://` blob store reaches its bucket (lib/blob-store-s3.ts). */
export interface S3Settings {
  /** An S3-compatible server's URL. `S3_ENDPOINT`, default unset: AWS. */
  endpoint?: string;
  /** `S3_REGION`, default us-east-1. */
  region: string;
  /** `S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY`; unset: the AWS SDK's default chain (AWS_* variables, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path, not the host name. `S3_FORCE_PATH_STYLE`, default true when S3_ENDPOINT is set. */
  forcePathStyle: boolean;
}

/** Read only where BLOB_STORE_URL names a bucket, so a process without one never needs these. */
export function s3Settings(env: Env = process.env): S3Settings {
  const endpoint = env.S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint))
    throw new ConfigError(`S3_ENDPOINT must be an http:// or https:// URL, got "${endpoint}"`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (!accessKeyId !== !secretAccessKey)
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither, for the AWS default chain)');
  return {
    endpoint,
    region: env.S3_REGION || 'us-east-1',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    // A server of one's own seldom has a DNS name per bucket, as virtual-hosted style needs.
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
  };
}
