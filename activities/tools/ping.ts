//! ping: round-trip statistics to a public host, by ICMP echo where this process may send it,
//! else by timing TCP handshakes to `port`. The host is resolved and checked once by the target
//! guard, and every probe goes to that one address. Total loss is an answer (200), not an error.
import { pingHost, type PingAttempt, type PingInput, type PingMethod, type PingOutput } from '../../domain/tools/ping.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { createIcmpPinger, IcmpUnavailableError, type IcmpPinger } from '../network/icmp-ping.js';
import { summarise } from '../network/ping-stats.js';
import { tcpProbes } from '../network/tcp-ping.js';

export interface PingDeps {
  net: Pick<NetworkAccess, 'guard' | 'sockets'>;
  /** `PING_METHOD`: `auto` uses ICMP when the system ping may send it here, else TCP. */
  method: 'auto' | PingMethod;
  /** @default the system `ping` */
  icmp?: IcmpPinger;
  /**
   * Time between probe starts, milliseconds. @default 200 (iputils' floor for unprivileged
   * users): a 10-probe run stays under 2 s plus one timeout.
   */
  intervalMs?: number;
}

export function createPing({ net, method, icmp = createIcmpPinger(), intervalMs = 200 }: PingDeps): ToolHandler<PingInput, PingOutput> {
  async function chooseMethod(): Promise<PingMethod> {
    if (method !== 'auto') return method;
    return (await icmp.available()) ? 'icmp' : 'tcp';
  }

  async function probe(
    used: PingMethod,
    target: Awaited<ReturnType<typeof net.guard.resolveTarget>>,
    input: PingInput,
    signal: AbortSignal,
  ): Promise<PingAttempt[]> {
    const run = { count: input.count, timeoutMs: input.timeoutMs, intervalMs };
    if (used === 'tcp') return tcpProbes(net.sockets, { ...run, target }, signal);
    return icmp.probe({ ...run, address: target.address, family: target.family }, signal);
  }

  return async (input, ctx) => {
    const target = await net.guard.resolveTarget(pingHost(input.host), input.port);
    let used = await chooseMethod();
    let attempts: PingAttempt[];
    try {
      attempts = await probe(used, target, input, ctx.signal);
    } catch (err) {
      // ICMP was available at start but no longer is (privilege dropped): auto falls back for this call.
      if (!(err instanceof IcmpUnavailableError) || method !== 'auto') throw err;
      used = 'tcp';
      attempts = await probe(used, target, input, ctx.signal);
    }
    return {
      host: target.hostname,
      resolvedIp: target.address,
      method: used,
      ...(used === 'tcp' ? { port: target.port } : {}),
      ...summarise(attempts),
      attempts,
    };
  };
}
