//! What one filtering-proxy session lets through: its capture's policy, the ad and tracker list,
//! and the target guard's answer for each host and port (resolved once, pinned to the checked
//! address); and what it dropped or could not reach, for the capture to tell why its page failed.
import { type ToolError, ServiceError } from '../../contracts/errors.js';
import { upstreamError } from '../../lib/upstream.js';
import type { Logger } from '../../lib/logger.js';
import type { ResolvedTarget, TargetGuard } from '../../lib/target-guard.js';
import type { AdHostList } from './ad-hosts.js';

/** What a session drops. Set when a capture takes the session. */
export interface ProxyPolicy {
  /** Drop hosts of the ad and tracker list. */
  blockAds: boolean;
  /**
   * Never dropped as an ad host: the host of the page the user asked for, so a screenshot of an
   * ad network's own site still renders.
   */
  adExemptHost?: string;
}

/** One request or tunnel the proxy refused to carry. */
export type Drop = { kind: 'ad'; host: string; port: number } | { kind: 'target'; host: string; port: number; error: ToolError };

export type Admission = { ok: true; target: ResolvedTarget } | { ok: false; status: 403 | 502; code: string; message: string };

export interface SessionAdmission {
  /** Everything dropped so far, oldest first. */
  readonly drops: readonly Drop[];
  /** Starts admitting traffic under `policy`; until then everything is refused. */
  setPolicy(policy: ProxyPolicy): void;
  /** Decides on one host and port: dropped as an ad, refused by the guard, or its pinned target. */
  admit(host: string, port: number): Promise<Admission>;
  /** Records that an admitted target could not be reached. */
  unreachable(host: string, port: number, err: unknown): void;
  /** Why traffic to `host:port` was not carried, if it was not. */
  errorFor(host: string, port: number): ToolError | undefined;
  /** Forgets the guard's answers and the failures so far: each host is resolved and checked anew when next asked for. */
  resolveAgain(): void;
}

const canonicalHost = (host: string) => host.toLowerCase().replace(/\.$/, '');
const sameHost = (a: string, b: string | undefined) => b !== undefined && canonicalHost(a) === canonicalHost(b);
const hostKey = (host: string, port: number) => `${canonicalHost(host)}:${port}`;

export function createSessionAdmission(deps: {
  guard: Pick<TargetGuard, 'resolveTarget'>;
  adHosts: Pick<AdHostList, 'matches'> | Promise<Pick<AdHostList, 'matches'>>;
  log?: Logger;
}): SessionAdmission {
  // Until a capture takes the session it carries nothing: a warm page cannot reach out early,
  // and the browser's fallback session (never taken) refuses everything.
  let policy: ProxyPolicy | undefined;
  const drops: Drop[] = [];
  const failures = new Map<string, ToolError>();

  // One answer per host and port for the session's capture: a page's many requests to a host
  // cost one lookup, and all of them reach the one address the guard checked.
  const targets = new Map<string, Promise<ResolvedTarget>>();
  function resolve(host: string, port: number): Promise<ResolvedTarget> {
    const key = hostKey(host, port);
    let target = targets.get(key);
    if (!target) {
      target = deps.guard.resolveTarget(host, port);
      target.catch(() => {}); // awaited by every request that asks; none must go unhandled
      targets.set(key, target);
    }
    return target;
  }

  async function admit(host: string, port: number): Promise<Admission> {
    if (!policy) return { ok: false, status: 403, code: 'no_capture', message: 'no capture' };
    if (policy.blockAds && !sameHost(host, policy.adExemptHost) && (await deps.adHosts).matches(host)) {
      drops.push({ kind: 'ad', host, port });
      return { ok: false, status: 403, code: 'ad_host', message: 'ad or tracker host' };
    }
    try {
      return { ok: true, target: await resolve(host, port) };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      failures.set(hostKey(host, port), err);
      if (err.code === 'target_not_allowed') {
        drops.push({ kind: 'target', host, port, error: err });
        deps.log?.debug({ host, port, reason: err.extras.reason }, 'browser request refused by the target guard');
        return { ok: false, status: 403, code: err.code, message: err.message };
      }
      return { ok: false, status: 502, code: err.code, message: err.message };
    }
  }

  return {
    drops,
    setPolicy(next) {
      policy = { ...next };
    },
    admit,
    unreachable(host, port, err) {
      failures.set(hostKey(host, port), upstreamError(err, host, port));
    },
    errorFor(host, port) {
      return failures.get(hostKey(host, port));
    },
    resolveAgain() {
      targets.clear();
      failures.clear();
    },
  };
}
