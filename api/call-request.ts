//! A tool call as the route hands it on, validated: what its idempotency claim, its workflow and its
//! answer are made from (tool-calls.ts, call-idempotency.ts, call-workflow.ts).
import type { ToolDefinition } from '../domain/tools/index.js';

export interface CallRequest {
  accountId: string;
  tool: ToolDefinition;
  /** Validated input, defaults applied. */
  input: Record<string, unknown>;
  idempotencyKey?: string;
  /** The destination (`Output-Destination`) its file goes to, checked to be the account's. */
  destination?: string;
  /** When the request arrived (epoch ms): its deadlines count from there. */
  arrivedAt: number;
  /** The API key that made it (its usage entry and monthly spending name it). */
  keyId?: string;
  /** That key's monthlyCreditLimit, when it has one. */
  keyCreditLimit?: number;
  /** The door the call came in by when it was not REST: `mcp` for a tools/call over MCP. Its usage entry says so. */
  via?: 'mcp';
  /** An asynchronous capture asked for with `Cache-Control`: its worker stores the render in the render cache once it succeeded. */
  cacheRender?: true;
}
