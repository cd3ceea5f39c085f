//! The tool catalogue, built from the list of tool definitions (domain/tools/index.ts): lookups
//! by name and by pool. A tool that is not listed does not exist for clients (404 `unknown_tool`).
import type { ToolPool } from '../lib/temporal-shared.js';
import type { ToolDefinition } from './tool-definition.js';
import { TOOLS } from './tools/index.js';

export const CATALOGUE: ReadonlyMap<string, ToolDefinition> = new Map(TOOLS.map((t) => [t.name, t]));

export function findTool(name: string): ToolDefinition | undefined {
  return CATALOGUE.get(name);
}

export function toolsOfPool(pool: ToolPool): ToolDefinition[] {
  return [...CATALOGUE.values()].filter((t) => t.pool === pool);
}
