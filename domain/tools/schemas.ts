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
const published = (title: string, schema: object): Record<string, unknown> => ({
  $schema: DRAFT,
  title,
  ...(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>),
});

export function loadToolSchemas(name: string): ToolSchemas {
  const tool = CATALOGUE.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return { input: published(`${name} input`, tool.schemas.input), output: published(`${name} output`, tool.schemas.output) };
}

/** Schemas of every tool in the catalogue. */
export function loadCatalogueSchemas(): Map<string, ToolSchemas> {
  return new Map([...CATALOGUE.keys()].map((name) => [name, loadToolSchemas(name)]));
}
