//! The SSRF target guard: the one place that decides whether an address may be reached. It
//! normalises hosts (target-host.ts), resolves names with the service's resolver, refuses
//! non-public addresses (address-class.ts) unless the operator allowlists them
//! (target-allowlist.ts), and hands out the checked address to connect to, so that nothing
//! resolves the name a second time.
import type { AddressReason } from './address-class.js';
import { ServiceError } from '../contracts/errors.js';
import { DnsError, type DnsResolver } from './resolver.js';
import { checkAddress, parseAllowlist, type AddressVerdict } from './target-allowlist.js';
import { isLocalhostName, normaliseHost, refuse, type NormalisedHost } from './target-host.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/** A target a call will reach, as its input names it: a URL, or a host and port. */
export type Target = { readonly url: string } | { readonly host: string; readonly port: number };

export interface CheckedUrl {
  /** The parsed URL (already normalised by the WHATWG parser). */
  url: URL;
  /** Host to send in `Host` and SNI: normalised name, or IP (IPv6 without brackets). */
  hostname: string;
  /** Effective port (scheme default when the URL has none). */
  port: number;
  /** Set when the host is an IP literal (already checked). */
  ip?: string;
}

export interface CheckUrlOptions {
  /**
   * Schemes the caller accepts, with or without the colon.
   * @default ['http', 'https']. Widen only for tools that really speak another protocol.
   */
  schemes?: readonly string[];
}

export interface ResolvedTarget {
  /** Normalised host name (or IP) the caller asked for: use it for `Host` and SNI. */
  readonly hostname: string;
  readonly port: number;
  /** The checked address to connect to. Connect here; never resolve `hostname` again. */
  readonly address: string;
  readonly family: 4 | 6;
  /** Every address the name resolved to; all of them passed the check. */
  readonly addresses: readonly string[];
  /** `allowlist` when any address needed the operator allowlist to pass. */
  readonly via: 'public' | 'allowlist';
}

export interface TargetGuardOptions {
  /**
   * `TARGET_ALLOWLIST` entries: CIDRs with an optional `:port` that may be reached although not
   * public. Parsed strictly at creation; a bad entry throws `ConfigError`. Empty in production;
   * tests list their loopback fixture ports here instead of switching the guard off.
   */
  allowlist: readonly string[];
  /** The service resolver (`createResolver({ servers: DNS_SERVERS })`). */
  resolver: Pick<DnsResolver, 'lookup'>;
}

export interface TargetGuard {
  /**
   * Parses and checks a URL without DNS: scheme, credentials, host syntax, port, and the address
   * itself when the host is an IP literal. Throws `ServiceError('target_not_allowed')`.
   */
  checkUrl(url: string | URL, options?: CheckUrlOptions): CheckedUrl;
  /**
   * Resolves `host` with the service resolver and checks every address; refuses if any one is
   * refused. Takes hosts as URLs carry them and as users type them (ping, ssl-check, smtp-test):
   * any encoding, `[v6]` too. Throws `ServiceError('target_not_allowed')` or, when the name cannot
   * be resolved, `ServiceError('upstream_error')`.
   */
  resolveTarget(host: string, port: number): Promise<ResolvedTarget>;
  /**
   * Checks the targets a call will reach without DNS, in order, and throws for the first one
   * refused: a URL as `checkUrl` does; a host and port as `resolveTarget` takes them, for the
   * port, the host's syntax and an IP literal's address. Throws `ServiceError('target_not_allowed')`.
   */
  checkTargets(targets: readonly Target[]): void;
  /** `checkUrl`, then `resolveTarget` of its host and port. */
  resolveUrl(url: string | URL, options?: CheckUrlOptions): Promise<CheckedUrl & { target: ResolvedTarget }>;
  /** The rule for one address and port, with this guard's allowlist. */
  checkAddress(address: string, port: number): AddressVerdict;
  /** True for targets this guard produced (connectors refuse anything else). */
  issued(target: ResolvedTarget): boolean;
}

const REASON_TEXT: Record<AddressReason, string> = {
  unspecified: 'an unspecified ("this network") address',
  loopback: 'a loopback address',
  private: 'a private network address',
  cgnat: 'a shared (carrier-grade NAT) address',
  link_local: 'a link-local address',
  site_local: 'a site-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  documentation: 'a documentation address',
  metadata: 'a cloud metadata address',
};

function addressRefusal(hostname: string, isLiteral: boolean, verdict: Extract<AddressVerdict, { allowed: false }>): ServiceError {
  const what = REASON_TEXT[verdict.reason] + (verdict.embedded ? ' (inside an IPv6 address)' : '');
  const message = isLiteral ? `Target not allowed: ${hostname} is ${what}` : `Target not allowed: ${hostname} resolves to ${what}`;
  // The resolved address stays out of the client's answer (it would map internal names for anyone
  // who asks); the cause carries it to the logs.
  const detail = `${verdict.address} in ${verdict.range}${verdict.embedded ? ` via ${verdict.embedded.form} ${verdict.embedded.ipv4}` : ''}`;
  return refuse(verdict.reason, message, new Error(detail));
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw refuse('invalid_port', 'Target port must be 1-65535');
}

export function createTargetGuard(options: TargetGuardOptions): TargetGuard {
  const allowlist = parseAllowlist(options.allowlist);
  const { resolver } = options;
  const issuedTargets = new WeakSet<ResolvedTarget>();

  const check = (address: string, port: number) => checkAddress(address, port, allowlist);

  function checkUrl(input: string | URL, opts: CheckUrlOptions = {}): CheckedUrl {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch (err) {
      throw refuse('invalid_url', 'Target is not a valid absolute URL', err);
    }
    const schemes = (opts.schemes ?? ['http', 'https']).map((s) => s.toLowerCase().replace(/:?$/, ':'));
    if (!schemes.includes(url.protocol)) {
      throw refuse(
        'scheme',
        `Target scheme ${url.protocol.slice(0, -1)} is not allowed (use ${schemes.map((s) => s.slice(0, -1)).join(' or ')})`,
      );
    }
    if (url.username || url.password) throw refuse('credentials', 'Target URLs must not carry credentials');
    if (!url.hostname) throw refuse('empty_host', 'The target URL has no host');
    const host = normaliseHost(url.hostname);
    const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
    if (port === undefined) throw refuse('invalid_port', `Target URL needs a port for scheme ${url.protocol.slice(0, -1)}`);
    checkPort(port);
    if (host.ip) {
      const verdict = check(host.ip, port);
      if (!verdict.allowed) throw addressRefusal(host.hostname, true, verdict);
      return { url, hostname: host.hostname, port, ip: host.ip };
    }
    return { url, hostname: host.hostname, port };
  }

  async function addressesOf(host: NormalisedHost): Promise<string[]> {
    if (host.ip) return [host.ip];
    if (isLocalhostName(host.hostname)) return ['127.0.0.1', '::1'];
    let answer;
    try {
      answer = await resolver.lookup(host.hostname);
    } catch (err) {
      const kind = err instanceof DnsError ? err.kind : 'error';
      const text = err instanceof DnsError ? err.message : `Could not resolve ${host.hostname}`;
      throw new ServiceError('upstream_error', text, { reason: `dns_${kind}` }, { cause: err });
    }
    if (!answer.found) {
      const why = answer.status === 'nxdomain' ? 'no such domain' : 'the name has no address records';
      throw new ServiceError('upstream_error', `Could not resolve ${host.hostname}: ${why}`, { reason: `dns_${answer.status}` });
    }
    return answer.addresses.map((a) => a.address);
  }

  /** The port, the host's syntax and an IP literal's address: what needs no DNS. */
  function checkedHost(hostInput: string, port: number): NormalisedHost {
    checkPort(port);
    const host = normaliseHost(hostInput);
    if (host.ip) {
      const verdict = check(host.ip, port);
      if (!verdict.allowed) throw addressRefusal(host.hostname, true, verdict);
    }
    return host;
  }

  async function resolveTarget(hostInput: string, port: number): Promise<ResolvedTarget> {
    const host = checkedHost(hostInput, port);
    const addresses = await addressesOf(host);
    const verdicts = addresses.map((a) => check(a, port));
    for (const v of verdicts) if (!v.allowed) throw addressRefusal(host.hostname, Boolean(host.ip), v);
    const allowed = verdicts as Extract<AddressVerdict, { allowed: true }>[];
    // IPv4 first: it is the family every network here can route.
    const chosen = allowed.find((v) => v.family === 4) ?? allowed[0]!;
    const target: ResolvedTarget = Object.freeze({
      hostname: host.hostname,
      port,
      address: chosen.address,
      family: chosen.family,
      addresses: Object.freeze(allowed.map((v) => v.address)),
      via: allowed.some((v) => v.via === 'allowlist') ? 'allowlist' : 'public',
    });
    issuedTargets.add(target);
    return target;
  }

  return {
    checkUrl,
    checkTargets(targets) {
      for (const target of targets) {
        if ('url' in target) checkUrl(target.url);
        else checkedHost(target.host, target.port);
      }
    },
    resolveTarget,
    async resolveUrl(url, opts) {
      const checked = checkUrl(url, opts);
      return { ...checked, target: await resolveTarget(checked.hostname, checked.port) };
    },
    checkAddress: check,
    issued: (target) => issuedTargets.has(target),
  };
}
