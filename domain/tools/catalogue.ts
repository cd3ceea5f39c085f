//! The tool catalogue, built from the list of tool definitions (domain/tools/list.ts): lookups
//! by name and by pool. A tool that is not listed does not exist for clients (404 `unknown_tool`).
import { TASK_QUEUES, callTaskQueue, type Pool, type ToolPool } from '../../contracts/temporal-names.js';
import type { ToolDefinition } from './definition.js';
import { TOOLS } from './list.js';

export const CATALOGUE: ReadonlyMap<string, ToolDefinition> = new Map(TOOLS.map((t) => [t.name, t]));

export function findTool(name: string): ToolDefinition | undefined {
  return CATALOGUE.get(name);
}

export function toolsOfPool(pool: ToolPool): ToolDefinition[] {
  return [...CATALOGUE.values()].filter((t) => t.pool === pool);
}

/** The task queues a pool's worker process polls: the pool's own, and every queue its tools' calls start on. */
export function poolTaskQueues(pool: Pool): string[] {
  const calls = pool === 'core' ? [] : toolsOfPool(pool).map(callTaskQueue);
  return [...new Set([TASK_QUEUES[pool], ...calls])];
}
