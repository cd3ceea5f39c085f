//! The tools' public face: the catalogue built from the list of definitions (`list.ts`), the
//! definition's shape (`definition.ts`) and the tools' schemas. A tool's own definition
//! (`<tool>.ts`: its types, cost, pool and precheck) is imported by name by its handler.
export { CATALOGUE, findTool, poolTaskQueues, toolsOfPool } from './catalogue.js';
export { GROUPS, type Group, type ToolDefinition } from './definition.js';
export { publishedCatalogueSchemas, type ToolSchemas } from './schemas.js';
export { createHandlers, type HandlerFactories, type PoolHandlers, type ToolInput, type ToolOutput, type ToolName } from './list.js';
export { precheckedHandler, standaloneContext, type ToolContext, type ToolHandler } from './handler.js';
