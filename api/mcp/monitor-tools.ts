//! The account's monitors as MCP tools: `monitor-list` and `monitor-create`, answered by the same
//! monitor service as `/api/v1/account/monitors` and allowed by the same role table
//! (domain/teams/permissions.ts): an agent acts with the role of the member who connected it, a key
//! as the roles that make keys do; a key limited to some tools may watch only those. Free: a
//! monitor's runs are what is charged, each as the call it makes.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { findTool } from '../../domain/tools/index.js';
import { keyMayCall } from '../../domain/accounts/index.js';
import { CreateMonitorBody, type MonitorService, invalidRequest } from '../../domain/monitors/index.js';
import { GROUPS, permits } from '../../domain/teams/index.js';
import type { AuditContext } from '../../domain/audit/index.js';
import { ServiceError } from '../../contracts/errors.js';
import type { Principal } from '../auth.js';
import { MONITOR_SCHEMAS } from '../docs/monitor-schemas.js';
import { nextCursor } from '../docs/schema-parts.js';
import { decodeCursor, encodeCursor } from '../paging.js';
import { roleOf } from '../permissions.js';
import { compileBodySchema } from '../validation.js';
import { successResult } from './results.js';

export const MONITOR_TOOLS = { list: 'monitor-list', create: 'monitor-create' } as const;

const MONITORS_PATH = '/api/v1/account/monitors';
const LIST_MAX = 100;

/** The principal's role on the account as the role table reads it: a key acts as the roles that may make keys. */
const actingRole = (principal: Principal) => (principal.kind === 'oauth' ? roleOf(principal) : GROUPS.build[0]);

const mayRead = (principal: Principal) => permits(actingRole(principal), 'GET', MONITORS_PATH).allowed;
const mayCreate = (principal: Principal) => permits(actingRole(principal), 'POST', MONITORS_PATH).allowed;

const LIST_TOOL: Tool = {
  name: MONITOR_TOOLS.list,
  title: 'List monitors',
  description:
    "The account's monitors, newest first: each tool run on a schedule, with its state (up, down, degraded, paused), uptime and latest runs. Free.",
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: LIST_MAX, default: 20, description: 'How many.' },
      cursor: { type: 'string', description: '`nextCursor` of the previous page.' },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['items', 'nextCursor'],
    properties: { items: { type: 'array', items: MONITOR_SCHEMAS.Monitor }, nextCursor },
  } as Tool['outputSchema'],
  annotations: { title: 'List monitors', readOnlyHint: true },
};

const CREATE_TOOL: Tool = {
  name: MONITOR_TOOLS.create,
  title: 'Create a monitor',
  description:
    'Runs a catalogue tool on a schedule and judges each answer with assertions (JSON pointers into the answer, compared); the monitor goes down after `alert.downAfter` failed runs in a row, and the account is told by webhook events and mail. ' +
    'Each run is an ordinary call of its tool, charged its cost when it answers 200. Creating it is free.',
  inputSchema: CreateMonitorBody as Tool['inputSchema'],
  outputSchema: MONITOR_SCHEMAS.Monitor as Tool['outputSchema'],
  annotations: { title: 'Create a monitor', readOnlyHint: false, openWorldHint: true },
};

/** The monitor tools `principal` may use. */
export function monitorToolsListedTo(principal: Principal): Tool[] {
  return [...(mayRead(principal) ? [LIST_TOOL] : []), ...(mayCreate(principal) ? [CREATE_TOOL] : [])];
}

export const isMonitorTool = (name: string) => name === MONITOR_TOOLS.list || name === MONITOR_TOOLS.create;

const createBody = compileBodySchema(CreateMonitorBody, invalidRequest);

/** Who acts, as the audit log records it: the member an agent acts for, else the key by its prefix. */
const acting = (principal: Principal): AuditContext => ({
  actor: principal.userId ? { type: 'user', credential: null, userId: principal.userId } : { type: 'owner', credential: principal.prefix },
  ip: null,
  userAgent: 'mcp',
});

function refusedForRole(principal: Principal, name: string): ServiceError {
  return new ServiceError('forbidden_for_role', `This app acts with the role ${actingRole(principal)}, which may not use ${name}.`, {
    requiredRole: 'developer',
    role: actingRole(principal),
  });
}

/** Answers a call of a monitor tool. */
export async function callMonitorTool(
  monitors: MonitorService,
  principal: Principal,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  if (name === MONITOR_TOOLS.list) {
    if (!mayRead(principal)) throw refusedForRole(principal, name);
    const limit = args.limit ?? 20;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > LIST_MAX)
      throw invalidRequest([{ field: '/limit', message: `must be an integer from 1 to ${LIST_MAX}` }]);
    const after = typeof args.cursor === 'string' ? decodeCursor(args.cursor) : undefined;
    const page = await monitors.list(principal.accountId, limit as number, after);
    const last = page.rows.at(-1);
    return successResult(undefined, { items: page.views, nextCursor: page.more && last ? encodeCursor(last.createdAt, last._id) : null });
  }
  if (!mayCreate(principal)) throw refusedForRole(principal, name);
  const body = createBody(structuredClone(args));
  const tool = findTool(body.tool);
  if (tool && !keyMayCall(principal.limits?.tools, tool))
    throw new ServiceError('tool_not_allowed', `This key may not call ${tool.name}, so it may not watch it either.`, { tool: tool.name });
  return successResult(undefined, await monitors.create(principal.accountId, body, acting(principal)));
}
