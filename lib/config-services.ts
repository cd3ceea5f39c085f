//! The settings of the outside services the process talks to, each read and checked as a whole:
//! Stripe, OpenID Connect providers, the trace collector, the mail server and sender, an S3
//! bucket. lib/config.ts puts them in the process's Config.
import { ConfigError, bool, oneOf, type Env } from './config-values.js';

export interface StripeConfig {
  /** `STRIPE_SECRET_KEY` (`sk_test_...`, `sk_live_...` or a restricted `rk_...`). Never logged. */
  secretKey: string;
  /** `STRIPE_WEBHOOK_SECRET` (`whsec_...`): verifies the `Stripe-Signature` of Stripe's events. Never logged. */
  webhookSecret: string;
  /** `STRIPE_API_URL`: Stripe's API elsewhere (stripe-mock in tests); unset: Stripe's own. */
  apiUrl?: URL;
}

/** Payments are on when both keys are set; one without the other is a mistake said at start. */
export function stripeConfig(env: Env): StripeConfig | undefined {
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
export function tracingConfig(env: Env): TracingConfig | undefined {
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
