//! Loads `schemas/tools/<tool>.json`: the input and output JSON Schemas of each tool, the one
//! source of validation and of the OpenAPI document.
import { readFileSync } from 'node:fs';
import { CATALOGUE } from './catalogue.js';

export interface ToolSchemas {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

const SCHEMA_DIR = new URL('../../schemas/tools/', import.meta.url);

export function loadToolSchemas(name: string): ToolSchemas {
  const doc = JSON.parse(readFileSync(new URL(`${name}.json`, SCHEMA_DIR), 'utf8')) as ToolSchemas;
  if (!doc.input || !doc.output) throw new Error(`schemas/tools/${name}.json needs "input" and "output"`);
  return doc;
}

/** Schemas of every tool in the catalogue. */
export function loadCatalogueSchemas(): Map<string, ToolSchemas> {
  return new Map([...CATALOGUE.keys()].map((name) => [name, loadToolSchemas(name)]));
}
