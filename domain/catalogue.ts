//! The tool catalogue, built from the list of tool definitions (domain/tools/index.ts): lookups
//! by name and by pool, and each tool's precheck. A tool that is not listed does not exist for
//! clients (404 `unknown_tool`).
import type { ToolPool } from '../lib/temporal-shared.js';
import type { Precheck, ToolDefinition } from './tool-definition.js';
import { TOOLS } from './tools/index.js';

export const CATALOGUE: ReadonlyMap<string, ToolDefinition> = new Map(TOOLS.map((t) => [t.name, t]));

export function findTool(name: string): ToolDefinition | undefined {
  return CATALOGUE.get(name);
}

export function toolsOfPool(pool: ToolPool): ToolDefinition[] {
  return [...CATALOGUE.values()].filter((t) => t.pool === pool);
}

/**
 * Every tool's I/O-free precheck, keyed by tool name. Input reaching a precheck has passed its
 * tool's schema: the cast states that, once.
 */
export const PRECHECKS: Readonly<Record<string, Precheck>> = Object.fromEntries(
  TOOLS.flatMap((t: ToolDefinition): [string, Precheck][] => (t.precheck ? [[t.name, t.precheck]] : [])),
);
