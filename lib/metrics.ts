//! Prometheus metrics of the process (served by the API at /metrics).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    toolCalls: new Counter({
      name: 'tool_calls_total',
      help: 'Tool calls by tool and outcome (charged, or the error code)',
      labelNames: ['tool', 'outcome'] as const,
      registers: [registry],
    }),
    creditsCharged: new Counter({
      name: 'credits_charged_total',
      help: 'Credits charged by tool',
      labelNames: ['tool'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
