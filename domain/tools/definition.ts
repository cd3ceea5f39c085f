//! What defines a tool: its name, group, price, pool, deadline, secret fields, the failures it
//! documents, its input and output schemas (whose static types are its input and output types)
//! and its I/O-free precheck. One light module per tool (`domain/tools/<tool>.ts`) declares it;
//! the API and the workers both read it from there.
import type { TObject } from '@sinclair/typebox';
import type { ErrorCode } from '../../contracts/errors.js';
import type { ToolPool } from '../../contracts/temporal-names.js';
import type { Target } from '../../lib/target-guard.js';

export const GROUPS = {
  network: 'Network probes',
  web: 'Web pages',
  files: 'Files and images',
  hashing: 'Hashing and passwords',
  market: 'Market data',
} as const;
export type Group = keyof typeof GROUPS;

export type ToolExecution = 'local' | 'queued';

/** Where a call goes on the network: a URL, or a host and port as the user typed the host. */
export type ToolTarget = Target;

/**
 * A field of a tool's input or output. Of a definition without its types (any tool, as the API and
 * the workers hold them by name), any field name.
 */
type FieldOf<T> = unknown extends T ? string : keyof T & string;

/**
 * A tool's definition. Without type arguments, any tool's, so every tool's definition is also a
 * `ToolDefinition`: its precheck and targets are methods, whose parameter TypeScript compares both
 * ways, and the names of its input's and output's fields are type parameters of their own (`InField`,
 * `OutField`, following from `I` and `O`), which only widen.
 */
export interface ToolDefinition<
  Name extends string = string,
  P extends ToolPool = ToolPool,
  I = unknown,
  O = unknown,
  InField extends string = FieldOf<I>,
  OutField extends string = FieldOf<O>,
> {
  readonly name: Name;
  readonly group: Group;
  /** Credits charged for a call that answers 200. */
  readonly cost: number;
  readonly pool: P;
  /** Deadline for the tool's work, all attempts included; past it the call answers 504. */
  readonly timeoutMs: number;
  /**
   * The JSON Schemas (TypeBox) of its input and output: Ajv validates requests by the input's
   * (defaults applied), the OpenAPI document and the MCP tool list publish both
   * (domain/tools/schemas.ts), and `I` and `O` are their static types.
   */
  readonly schemas: { readonly input: TObject; readonly output: TObject };
  /**
   * Which of its pool's task queues the call waits in. Either way the call is one workflow task
   * with one local activity, the reserve, the tool and the commit or refund
   * (activities/call-step.ts), which the worker keeps alive while the tool runs past the task
   * timeout. `local` (the default): the pool's queue, whose workers hold many calls at once.
   * Captures run so: their pool holds one call per page (workers/pools.ts). `queued`: the pool's
   * queue of long calls (LONG_CALL_QUEUES), whose workers hold only as many as their tools work
   * on at once, so that heavy work whose pool also serves short calls (conversions and upscales
   * beside hashing) never holds those calls' task slots; any replica of the pool takes the rest,
   * and a backlog shows as that queue's schedule-to-start latency.
   */
  readonly execution?: ToolExecution;
  /**
   * The output field that carries the tool's file (base64, its type in the output's `mimeType`).
   * Tools with one accept `Output-Destination`: the file goes to the account's bucket and the
   * answer says where (domain/destinations/), instead of carrying the bytes.
   */
  readonly fileField?: OutField;
  /** Input fields sealed with the per-call key before the workflow starts (never in history). */
  readonly secretFields?: readonly InField[];
  /** Request body limit when it differs from the default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Error codes this tool can answer with beyond those every tool call shares (the table of
   * contracts/errors.ts), so the reference lists only what can happen.
   */
  readonly failures: readonly ErrorCode[];
  /**
   * Checks beyond JSON Schema that need no I/O. The API runs it after validation (defaults
   * applied) and before a workflow starts; the handler runs it again. Throws a ServiceError when the
   * input cannot be served.
   */
  precheck?(input: I): void;
  /**
   * The targets the call will reach, read from input that passed the precheck. The API refuses
   * one the target guard refuses without DNS (an IP literal in a refused range) before a workflow
   * starts, so an asynchronous call is refused before its 202 as a synchronous one is.
   */
  targets?(input: I): readonly ToolTarget[];
  /**
   * For a tool whose answer is an image: the output field that carries it, base64. Such a tool
   * can be called through a render link (`GET /api/v1/render/...`, which answers the image
   * itself) and its renders are kept in the render cache (domain/render-cache.ts).
   */
  readonly image?: { readonly field: OutField };
  /** Carries the input and output types for the compiler; never set. */
  readonly types?: { readonly input: I; readonly output: O };
}

/**
 * A tool's definition, typed by its input and output: `defineTool<In, Out>()({ name, ... })`.
 * (Two calls, so that the types are given and the name and pool are still read as literals.)
 */
export function defineTool<I extends object, O extends object>() {
  return <const Name extends string, const P extends ToolPool>(
    definition: Omit<ToolDefinition<Name, P, I, O>, 'types'>,
  ): ToolDefinition<Name, P, I, O> => definition;
}

/** Failures that tools of one kind share. */
export const FAILURES = {
  /** Fetches a page: a refused or unreachable target, a page over the size limit. */
  fetchesPage: ['target_not_allowed', 'source_too_large', 'upstream_error'],
  /** Downloads a file it then reads by its bytes. */
  fetchesFile: ['target_not_allowed', 'source_too_large', 'unsupported_source', 'upstream_error'],
  /** Connects to a host the caller names. */
  connects: ['target_not_allowed', 'upstream_error'],
  /** Reads a hash whose parameters the caller chose. */
  readsHash: ['hash_too_costly', 'invalid_hash'],
} as const satisfies Record<string, readonly ErrorCode[]>;
