//! Jaeger for the local and test stacks: where the service's traces go (OTLP over HTTP) and where
//! they are read (the query API and UI). Its ports are chosen before it exists, so the API and the
//! workers start with the endpoint at once and Jaeger joins when its build is done
//! (scripts/jaeger-build.mjs): nothing waits for it, spans sent before it listens are dropped.
import path from 'node:path';
import { assertPortFree, waitForHttp } from './net.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface JaegerPorts {
  /** OTLP/HTTP receiver (the service's OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlp: number;
  /** Query API and UI. */
  query: number;
  /** Query over gRPC (unused here, but Jaeger binds it). */
  queryGrpc: number;
}

export interface RunningJaeger {
  process: ManagedProcess;
  /** The UI and the query API (`/api/traces/{traceId}`). */
  queryUrl: string;
}

/** What the service's processes need to send their traces to this Jaeger; without `sampler`, the service's default sampling. */
export function tracingEnv(ports: JaegerPorts, sampler?: string): NodeJS.ProcessEnv {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${ports.otlp}`, ...(sampler && { OTEL_TRACES_SAMPLER: sampler }) };
}

export const jaegerQueryUrl = (ports: JaegerPorts) => `http://127.0.0.1:${ports.query}`;

/** Starts the built binary with deploy/jaeger/config.yaml on `ports`; resolves once its query API answers. */
export async function startJaeger(
  supervisor: Supervisor,
  options: { root: string; binary: string; ports: JaegerPorts; host?: string; timeoutMs?: number },
): Promise<RunningJaeger> {
  const host = options.host ?? '127.0.0.1';
  // A port taken is an error here, not a Jaeger that dies at once (which would stop a supervised start).
  for (const [what, port] of Object.entries(options.ports)) await assertPortFree(port, `Jaeger (${what})`);
  const proc = supervisor.start({
    name: 'jaeger',
    command: options.binary,
    args: ['--config', path.join(options.root, 'deploy', 'jaeger', 'config.yaml')],
    env: {
      ...process.env,
      JAEGER_OTLP_HTTP: `${host}:${options.ports.otlp}`,
      JAEGER_QUERY_HTTP: `${host}:${options.ports.query}`,
      JAEGER_QUERY_GRPC: `127.0.0.1:${options.ports.queryGrpc}`,
    },
    layer: 0,
    stopTimeoutMs: 5_000,
  });
  const queryUrl = jaegerQueryUrl(options.ports);
  await waitForHttp(`${queryUrl}/api/services`, { what: 'Jaeger', timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] });
  return { process: proc, queryUrl };
}

/** Jaeger's usual ports, as `npm start` and `npm run start:cluster` run it. */
export const LOCAL_JAEGER_PORTS: JaegerPorts = { otlp: 4318, query: 16686, queryGrpc: 16685 };

/**
 * The local Jaeger of `npm start` and `npm run start:cluster`: started once `built` (the binary,
 * scripts/jaeger-build.mjs) resolves, on LOCAL_JAEGER_PORTS. Resolves true once it answers, false
 * (with a line saying why) when it cannot start: the service runs on without traces kept.
 */
export function startLocalJaeger(
  supervisor: Supervisor,
  options: { root: string; built: Promise<string>; prefix: string },
): Promise<boolean> {
  const url = `http://localhost:${LOCAL_JAEGER_PORTS.query}`;
  return options.built
    .then((binary) => startJaeger(supervisor, { root: options.root, binary, ports: LOCAL_JAEGER_PORTS }))
    .then(
      () => {
        console.log(
          `${options.prefix}: traces are kept in Jaeger: ${url}/api/traces/<traceId> (the trace id is in each answer's traceparent)`,
        );
        return true;
      },
      (err: Error) => {
        // A Ctrl-C during the build ends it (and refuses the start): the stop is the news, not this.
        if (supervisor.isStopping) return false;
        console.error(
          `${options.prefix}: no traces kept (the service runs on without): Jaeger did not start: ${err.message.split('\n')[0]}`,
        );
        return false;
      },
    );
}
