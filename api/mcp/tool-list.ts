//! The MCP tools a key is listed: each catalogue tool it may call, described from the same
//! definition and JSON Schemas as its REST operation, and the account's balance and usage.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CATALOGUE, type ToolDefinition, type ToolSchemas } from '../../domain/tools/index.js';
import { keyMayCall } from '../../domain/accounts/index.js';
import type { Principal } from '../auth.js';
import { mayCallTools } from '../call-admission.js';

/** The tools that read the account rather than call a catalogue tool: free, and listed to every key. */
export const ACCOUNT_TOOLS = { balance: 'account-balance', usage: 'account-usage' } as const;

/** Most usage rows `account-usage` answers. */
export const USAGE_MAX_LIMIT = 50;

/** Words a title spells in capitals. */
const ACRONYMS = new Set(['dns', 'ssl', 'smtp', 'http', 'html', 'seo', 'qr', 'pdf']);

/** `dns-lookup` -> `DNS lookup`, `word-to-pdf` -> `Word to PDF`. */
export function toolTitle(name: string): string {
  const words = name.split('-').map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w));
  return words.map((w, i) => (i === 0 ? w[0]!.toUpperCase() + w.slice(1) : w)).join(' ');
}

/**
 * What a call does beyond answering. Closed-world: the hashing tools and qr-generate compute from
 * their input alone; every other tool reaches a host, a page, a file or a feed it is named or
 * reads. Read-only: all but http-request, whose method may change what it targets (smtp-test
 * never sends a message).
 */
export function toolHints(tool: ToolDefinition): { readOnlyHint?: true; openWorldHint?: true } {
  const closedWorld = tool.group === 'hashing' || tool.name === 'qr-generate';
  return { ...(tool.name === 'http-request' ? {} : { readOnlyHint: true }), ...(closedWorld ? {} : { openWorldHint: true }) };
}

const plural = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;

/** A catalogue tool as MCP lists it. */
export function mcpTool(tool: ToolDefinition, schemas: ToolSchemas): Tool {
  const summary = typeof schemas.input.description === 'string' ? schemas.input.description : '';
  return {
    name: tool.name,
    title: toolTitle(tool.name),
    description: `${summary} Cost: ${plural(tool.cost)}, charged only when the call succeeds.`.trim(),
    inputSchema: schemas.input as Tool['inputSchema'],
    outputSchema: schemas.output as Tool['outputSchema'],
    annotations: { title: toolTitle(tool.name), ...toolHints(tool) },
    _meta: { cost: tool.cost, group: tool.group },
  };
}

const ACCOUNT_TOOL_LIST: Tool[] = [
  {
    name: ACCOUNT_TOOLS.balance,
    title: 'Account balance',
    description: "The account's credit balance. Free.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: {
      type: 'object',
      required: ['balance'],
      properties: { balance: { type: 'integer', description: 'Credits left.' } },
    },
    annotations: { title: 'Account balance', readOnlyHint: true },
  },
  {
    name: ACCOUNT_TOOLS.usage,
    title: 'Recent usage',
    description: "The account's most recent calls, newest first: tool, credits, outcome, when. Free.",
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1, maximum: USAGE_MAX_LIMIT, default: 10, description: 'How many rows.' } },
    },
    outputSchema: {
      type: 'object',
      required: ['items'],
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['requestId', 'tool', 'credits', 'outcome', 'at'],
            properties: {
              requestId: { type: 'string' },
              tool: { type: ['string', 'null'] },
              credits: { type: 'integer' },
              outcome: { type: 'string' },
              at: { type: 'string', format: 'date-time' },
              via: {
                type: 'string',
                enum: ['mcp', 'monitor'],
                description: "Present for a call made over MCP (`mcp`) or a monitor's run (`monitor`).",
              },
            },
          },
        },
      },
    },
    annotations: { title: 'Recent usage', readOnlyHint: true },
  },
];

/** Every tool `principal` may call, in catalogue order, then the account's two. */
export function toolsListedTo(principal: Principal, schemas: Map<string, ToolSchemas>): Tool[] {
  const callable = mayCallTools(principal) ? [...CATALOGUE.values()].filter((tool) => keyMayCall(principal.limits?.tools, tool)) : [];
  return [...callable.map((tool) => mcpTool(tool, schemas.get(tool.name)!)), ...ACCOUNT_TOOL_LIST];
}
