//! The shape every tool implementation has: a plain async function of validated input.
//! Workers wrap handlers into Temporal activities (`activities/tool-activities.ts`); tests call them
//! directly.

export interface ToolContext {
  /** The call's request id (its workflow id). */
  readonly requestId: string;
  /** Aborted when the activity is cancelled or passes its deadline. */
  readonly signal: AbortSignal;
  /** Tell Temporal the tool is alive (long tools call it while they work). */
  heartbeat(details?: unknown): void;
}

/**
 * A tool's handler. Without type arguments: any tool's, as a pool's map holds them by name; its
 * input was checked by the tool's schema, not by the compiler. (The signature is a method's, whose
 * parameter TypeScript compares both ways, so that every `ToolHandler<I, O>` is also a `ToolHandler`.)
 */
export type ToolHandler<I = unknown, O = unknown> = HandlerSignature<I, O>['handle'];
interface HandlerSignature<I, O> {
  handle(input: I, ctx: ToolContext): Promise<O>;
}

/** A context for calling a handler outside Temporal (tests, benchmarks). */
export function standaloneContext(requestId = 'local', signal = new AbortController().signal): ToolContext {
  return { requestId, signal, heartbeat() {} };
}

/**
 * A handler that runs the tool's precheck again before `compute`: for the tools whose input (a
 * work factor, the cost a supplied hash names, the length of a text) decides how long a pool
 * thread is held and how much memory it takes, the worker does not rely on the API's check alone.
 */
export function precheckedHandler<I, O>(
  precheck: (input: I) => void,
  compute: (input: I, signal: AbortSignal) => Promise<O>,
): ToolHandler<I, O> {
  return async (input, ctx) => {
    precheck(input);
    return compute(input, ctx.signal);
  };
}
