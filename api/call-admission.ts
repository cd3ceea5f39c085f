//! What a synchronous tool call goes through between its credential and its answer, whichever
//! door it came in by (`POST /api/v1/tools/<tool>`, or a `tools/call` over MCP): the key's tools,
//! the input validated with defaults, the precheck and the target guard; then both run the one
//! workflow (tool-calls.ts) and read its result the same way (call-outcome.ts).
import type { ToolDefinition } from '../domain/tools/index.js';
import { keyMayCall } from '../domain/accounts/index.js';
import { GROUPS } from '../domain/teams/index.js';
import { ServiceError } from '../contracts/errors.js';
import type { TargetGuard } from '../lib/target-guard.js';
import type { Principal } from './auth.js';
import type { CallRequest } from './call-request.js';
import type { Validators } from './validation.js';

export interface CallAdmissionDeps {
  validators: Validators;
  /** Refuses, without DNS, a target the workers' guard would refuse (an IP literal in a refused range). */
  guard: Pick<TargetGuard, 'checkTargets'>;
}

/**
 * Whether the principal may call tools at all: a key may; an agent acts with the role of the member
 * who connected it, and only the roles that may make keys spend the account's credits on calls.
 */
export const mayCallTools = (principal: Principal) =>
  principal.kind !== 'oauth' || (GROUPS.build as readonly string[]).includes(principal.role ?? '');

/** 403 `tool_not_allowed` when the key's `tools` leave `tool` out, or the agent's role calls no tool; checked before the body is read. */
export function checkKeyMayCall(principal: Principal, tool: ToolDefinition): void {
  if (!mayCallTools(principal))
    throw new ServiceError(
      'tool_not_allowed',
      `This app acts with the role ${principal.role}, which calls no tool (${GROUPS.build.join(', ')} do): it may read the balance and usage.`,
      { tool: tool.name },
    );
  if (!keyMayCall(principal.limits?.tools, tool))
    throw new ServiceError('tool_not_allowed', `This key may not call ${tool.name}.`, { tool: tool.name });
}

export function createCallAdmission(deps: CallAdmissionDeps) {
  /** A tool's input checked as a call's is before its workflow: validated in place (defaults applied), prechecked, its targets admitted. */
  function input(tool: ToolDefinition, body: Record<string, unknown>): Record<string, unknown> {
    const valid = deps.validators.validate(tool.name, body);
    tool.precheck?.(valid);
    if (tool.targets) deps.guard.checkTargets(tool.targets(valid));
    return valid;
  }

  /**
   * The call `body` asks for, checked as far as it can be before a workflow starts: 400 for a bad
   * field, the tool's precheck, 422 for a refused target. `body` is validated in place.
   */
  function request(
    principal: Principal,
    tool: ToolDefinition,
    body: Record<string, unknown>,
    options: { arrivedAt: number; idempotencyKey?: string; via?: 'mcp' },
  ): CallRequest {
    const keyCreditLimit = principal.limits?.monthlyCreditLimit;
    return {
      accountId: principal.accountId,
      tool,
      input: input(tool, body),
      arrivedAt: options.arrivedAt,
      keyId: principal.credentialId,
      ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
      ...(keyCreditLimit !== undefined ? { keyCreditLimit } : {}),
      ...(options.via ? { via: options.via } : {}),
    };
  }

  return { request, input };
}

export type CallAdmission = ReturnType<typeof createCallAdmission>;
