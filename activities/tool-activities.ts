//! Turns tool handlers into Temporal activities: opens sealed secrets, keeps the activity
//! heartbeating while the handler works, and converts a ServiceError into a non-retryable
//! ApplicationFailure whose type is the contract's error code, and a database out of reach
//! (call keys, stored quotes) into a retryable `unavailable` one.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../contracts/errors.js';
import { isDatabaseUnreachable } from '../lib/mongo.js';
import { open } from '../lib/sealed.js';
import { DEPENDENCY_UNREACHABLE, type ToolActivityInput } from '../contracts/call.js';
import type { ToolHandler } from '../domain/tools/index.js';
import type { CallKeys } from '../domain/calls/index.js';

/** How often the wrapper heartbeats; the workflow's heartbeat timeout is a few times this. */
export const HEARTBEAT_INTERVAL_MS = 1_000;

export function toApplicationFailure(err: ServiceError): ApplicationFailure {
  return ApplicationFailure.create({
    type: err.code,
    message: err.message,
    nonRetryable: true,
    details: [err.extras],
  });
}

/**
 * A dependency of the tool (the database) could not be reached: tried again within the call's
 * deadline, and if it stays away the call ends as the contract's 503, not as a bug's 500.
 */
function dependencyFailure(cause: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'unavailable',
    message: DEPENDENCY_UNREACHABLE.message,
    nonRetryable: false,
    cause: cause instanceof Error ? cause : undefined,
  });
}

export interface ToolActivityDeps {
  callKeys: CallKeys;
  /** The output as the call carries it: a big one stored once, a reference in its place (lib/output-blobs.ts). */
  keepOutput?: (output: unknown) => Promise<unknown>;
}

export function toolActivities(handlers: Record<string, ToolHandler>, deps: ToolActivityDeps) {
  const activities: Record<string, (req: ToolActivityInput) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    activities[name] = async (req: ToolActivityInput) => {
      const ctx = Context.current();
      // A local activity has no heartbeat of its own: its workflow task's timeout stands in.
      const heartbeat = ctx.info.isLocal ? () => {} : (details?: unknown) => ctx.heartbeat(details);
      const timer = ctx.info.isLocal ? undefined : setInterval(heartbeat, HEARTBEAT_INTERVAL_MS);
      try {
        const output = await handler(await toolInput(deps.callKeys, req), {
          requestId: req.requestId,
          signal: ctx.cancellationSignal,
          heartbeat,
        });
        return deps.keepOutput ? await deps.keepOutput(output) : output;
      } catch (err) {
        if (err instanceof ServiceError) throw toApplicationFailure(err);
        if (isDatabaseUnreachable(err)) throw dependencyFailure(err);
        throw err;
      } finally {
        clearInterval(timer);
      }
    };
  }
  return activities;
}

/** The tool's input with its sealed secret fields opened. */
export async function toolInput(callKeys: CallKeys, req: ToolActivityInput): Promise<Record<string, unknown>> {
  if (!req.sealed) return req.input;
  const key = await callKeys.fetch(req.requestId);
  // The key is gone only when the call already ended: nothing sensible is left to do.
  if (!key) throw ApplicationFailure.create({ type: 'internal_error', message: 'call key expired', nonRetryable: true });
  return { ...req.input, ...open<Record<string, unknown>>(key, req.sealed, req.requestId) };
}
