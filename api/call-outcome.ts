//! What a synchronous call's result means for its answer, the same for a `POST` and a render
//! link: a charged output (counted in the metrics), or the call's problem thrown.
import type { ToolDefinition } from '../domain/tools/index.js';
import { ServiceError } from '../contracts/errors.js';
import type { Metrics } from '../lib/metrics.js';
import type { ToolCallResult } from '../contracts/call.js';

export interface ChargedOutput {
  output: unknown;
  charged: number;
  balance: number;
}

/** The charged output of `result`; a failed call's ServiceError is thrown (nothing was charged). */
export function chargedOutput(metrics: Metrics, tool: ToolDefinition, result: ToolCallResult): ChargedOutput {
  if (result.ok) {
    metrics.toolCalls.inc({ tool: tool.name, outcome: 'charged' });
    metrics.creditsCharged.inc({ tool: tool.name }, result.charged);
    return { output: result.output, charged: result.charged, balance: result.balance };
  }
  const { code, message, extras } = result.error;
  metrics.toolCalls.inc({ tool: tool.name, outcome: code });
  throw new ServiceError(code, message, extras);
}
