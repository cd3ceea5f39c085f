//! A tool call's answer as an MCP tool result. A success: the REST answer's body as
//! `structuredContent`, its JSON as text (a file's base64 left out of the text), a small image as
//! image content, a capture's render link when there is one, and what REST says in headers (`X-Credits-Charged`, ...) in `_meta`. A refusal:
//! `isError` with text that starts with the problem's code, and the problem+json body REST would
//! answer in `_meta.problem`; never a JSON-RPC error.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../../domain/tools/index.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import { isDatabaseUnreachable } from '../../lib/mongo.js';
import { problemBody } from '../problem.js';

/** Largest image (decoded bytes) sent as image content too; a larger one is in `structuredContent` only. */
export const INLINE_IMAGE_MAX_BYTES = 512 * 1024;

type ResourceLink = Extract<CallToolResult['content'][number], { type: 'resource_link' }>;

/** What a REST answer carries in headers: what the call cost, what is left, its id. */
export interface CallMeta {
  charged: number;
  balance: number;
  requestId: string;
  replayed: boolean;
}

/** The file a tool answered (its `fileField`), when it has one. */
function fileOf(tool: ToolDefinition | undefined, output: Record<string, unknown>) {
  const field = tool?.fileField;
  const data = field ? output[field] : undefined;
  const mimeType = output.mimeType;
  if (!field || typeof data !== 'string' || typeof mimeType !== 'string') return undefined;
  return { field, data, mimeType, bytes: Math.floor((data.length * 3) / 4) };
}

/** A successful call's result. `tool` is undefined for the account's own tools (no file, no charge). */
export function successResult(
  tool: ToolDefinition | undefined,
  output: Record<string, unknown>,
  meta?: CallMeta,
  link?: ResourceLink,
): CallToolResult {
  const file = fileOf(tool, output);
  const shown = file
    ? { ...output, [file.field]: `(${file.bytes} bytes of ${file.mimeType}, base64 in structuredContent.${file.field})` }
    : output;
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(shown) }];
  if (file && file.mimeType.startsWith('image/') && file.bytes <= INLINE_IMAGE_MAX_BYTES) {
    content.push({ type: 'image', data: file.data, mimeType: file.mimeType });
  }
  if (link) content.push(link);
  return { content, structuredContent: output, ...(meta ? { _meta: { ...meta } } : {}) };
}

/** What an agent can do about a refusal, where there is something to do. */
function advice(err: ServiceError, baseUrl: string): string {
  switch (err.code) {
    case 'insufficient_credits':
      return ` Buy credits in the dashboard, ${baseUrl}/dashboard/billing (a member with the owner, admin or billing role can), or turn on auto-recharge there.`;
    case 'key_credit_limit':
      return ` The key's monthly credit limit is set in the dashboard, ${baseUrl}/dashboard/keys.`;
    case 'tool_not_allowed':
      return ` The key's tools are set in the dashboard, ${baseUrl}/dashboard/keys.`;
    default:
      return '';
  }
}

/**
 * The refusal of a call: the problem the REST route would answer for `err`. An error that is not
 * a ServiceError is logged here with the request id and shown as `internal_error`, as REST does.
 */
export function refusalResult(err: unknown, context: { baseUrl: string; requestId: string; log: Logger }): CallToolResult {
  let problem: ServiceError;
  if (err instanceof ServiceError) problem = err;
  else if (isDatabaseUnreachable(err)) {
    context.log.warn({ err, requestId: context.requestId }, 'database unreachable');
    problem = new ServiceError('unavailable', 'The service cannot reach its database right now; retry shortly.');
  } else {
    context.log.error({ err, requestId: context.requestId, path: '/mcp' }, 'unhandled error');
    problem = new ServiceError('internal_error', 'Something went wrong on our side; quote the request id if you contact us.');
  }
  const body = problemBody(context.baseUrl, problem.code, problem.message, context.requestId, problem.extras, problem.status);
  return {
    isError: true,
    content: [
      { type: 'text', text: `${problem.code}: ${problem.message}${advice(problem, context.baseUrl)} (request ${context.requestId})` },
    ],
    _meta: { problem: body },
  };
}
