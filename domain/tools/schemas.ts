//! The input and output JSON Schemas of each tool as the service publishes them: each tool's
//! TypeBox declaration (`schemas` of its definition) as plain JSON, named by a `title` and the
//! draft it follows. Ajv validates by them, and the OpenAPI document and the MCP tool list carry them.
import { CATALOGUE } from './catalogue.js';

export interface ToolSchemas {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

/** A declared schema as plain JSON (TypeBox marks its schemas with symbol keys), a fresh copy each time. */
const asPublished = (title: string, schema: object): Record<string, unknown> => ({
  $schema: DRAFT,
  title,
  ...(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>),
});

/** A tool's input and output schemas as published, derived from its definition (a fresh copy each call). */
export function publishedToolSchemas(name: string): ToolSchemas {
  const tool = CATALOGUE.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return { input: asPublished(`${name} input`, tool.schemas.input), output: asPublished(`${name} output`, tool.schemas.output) };
}

/** The published schemas of every tool in the catalogue, by name. */
export function publishedCatalogueSchemas(): Map<string, ToolSchemas> {
  return new Map([...CATALOGUE.keys()].map((name) => [name, publishedToolSchemas(name)]));
}
