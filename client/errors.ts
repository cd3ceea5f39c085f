//! The client's one error class: a problem+json answer of the service, or what kept the client
//! from getting one (the network, its deadline).
import type { components } from './api-types.js';

export type Problem = components['schemas']['Problem'];
export type FieldError = components['schemas']['FieldError'];
/** A code of the service's error table, or one the client gives when no answer came. */
export type ErrorCode = components['schemas']['ErrorCode'] | ClientErrorCode;
/**
 * `network_error`: no answer (connection refused or dropped) within the retries;
 * `timeout`: the call's deadline passed; `unexpected_response`: an answer that is not
 * problem+json (a proxy's error page, say).
 */
export type ClientErrorCode = 'network_error' | 'timeout' | 'unexpected_response';

export class UtilityToolsError extends Error {
  override readonly name = 'UtilityToolsError';
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  /** `X-Request-Id` of the answer: quote it to support. */
  readonly requestId: string | undefined;
  /** `insufficient_credits`: the available balance and the tool's cost. */
  readonly balance: number | undefined;
  readonly cost: number | undefined;
  /** `validation_failed`: every bad field. */
  readonly errors: FieldError[] | undefined;
  /** `target_not_allowed`, `upstream_error`: which rule refused, what failed. */
  readonly reason: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;
  /** The whole problem body, extra members included; undefined when none came. */
  readonly problem: (Problem & Record<string, unknown>) | undefined;

  constructor(init: {
    status: number;
    code: ErrorCode;
    detail: string;
    requestId?: string;
    problem?: Problem & Record<string, unknown>;
    retryAfter?: number;
    cause?: unknown;
  }) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.requestId = init.requestId ?? init.problem?.requestId;
    this.problem = init.problem;
    this.balance = init.problem?.balance;
    this.cost = init.problem?.cost;
    this.errors = init.problem?.errors;
    this.reason = init.problem?.reason;
    this.retryAfter = init.retryAfter ?? init.problem?.retryAfter;
  }

  /** The error of a problem body, as an answer or an asynchronous call's record carries it. */
  static fromProblem(problem: Problem & Record<string, unknown>, retryAfter?: number): UtilityToolsError {
    return new UtilityToolsError({ status: problem.status, code: problem.code, detail: problem.detail, problem, retryAfter });
  }
}
