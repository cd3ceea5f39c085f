//! The network pool's tools, keyed by tool name. Each reaches out only through `net` (the
//! resolver, target guard and guarded client of lib/network-access.ts).
import type { Db } from 'mongodb';
import type { Config } from '../../lib/config.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import type { ToolHandler } from '../../lib/tool-handler.js';

export interface NetworkToolDeps {
  net: NetworkAccess;
  db: Db;
  config: Config;
}

export function createNetworkTools(deps: NetworkToolDeps): Record<string, ToolHandler> {
  void deps;
  return {
    // One line per tool: 'tool-name': createToolName(deps),
  };
}
