//! The answer of a call made with `Prefer: respond-async`: whether it was asked for, and the 202
//! that points at the call's record.
import type { Context } from 'koa';
import type { ToolDefinition } from '../domain/tools/index.js';
import type { AsyncCallAnswer } from './tool-calls.js';

/** True when the request's `Prefer` header holds `respond-async` (tokens are case-insensitive). */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.some((v) => v.split(',').some((pref) => pref.split(';')[0]!.trim().toLowerCase() === 'respond-async'));
}

export const callLocation = (requestId: string) => `/api/v1/calls/${encodeURIComponent(requestId)}`;

/** When to look again: a tenth of the tool's deadline, 1 to 10 s. */
export const pollAfterSeconds = (tool: Pick<ToolDefinition, 'timeoutMs'>) => Math.min(10, Math.max(1, Math.ceil(tool.timeoutMs / 10_000)));

/** The 202 of an asynchronous call (or of a repeat of one with the same Idempotency-Key). */
export function sendAccepted(ctx: Context, tool: ToolDefinition, answer: AsyncCallAnswer): void {
  ctx.state.requestId = answer.requestId;
  ctx.status = 202;
  ctx.set('Location', callLocation(answer.requestId));
  ctx.set('Preference-Applied', 'respond-async');
  ctx.set('Retry-After', String(pollAfterSeconds(tool)));
  if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.body = { requestId: answer.requestId, tool: tool.name, status: answer.status, location: callLocation(answer.requestId) };
}
