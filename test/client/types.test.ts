//! The client's generated types (client/api-types.ts) are what openapi-typescript makes of the
//! document the running service serves, and binary outputs follow the naming the client decodes by.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/generate-client-types.mjs';
import { TOOL_NAMES } from 'utility-tools/client';
import { publishedCatalogueSchemas } from '../../domain/tools/schemas.js';
import { request } from '../helpers/api.js';

test('client/api-types.ts matches the live OpenAPI document (npm run generate:client)', async (t) => {
  const served = await request('GET', '/api/v1/openapi.json');
  t.is(served.status, 200);
  const expected = await renderClientTypes(served.body);
  t.true(readFileSync(CLIENT_TYPES_FILE, 'utf8') === expected, 'client/api-types.ts is stale: run `npm run generate:client`');
});

test('the client lists every tool of the catalogue', (t) => {
  t.deepEqual([...TOOL_NAMES].sort(), [...publishedCatalogueSchemas().keys()].sort());
});

test('binary outputs are top-level `<name>Base64` fields whose `<name>` is free for the bytes', (t) => {
  for (const [tool, { output }] of publishedCatalogueSchemas()) {
    const properties = (output as { properties?: Record<string, { contentEncoding?: string }> }).properties ?? {};
    for (const [field, schema] of Object.entries(properties)) {
      if (schema.contentEncoding !== 'base64') continue;
      t.regex(field, /Base64$/, `${tool}.${field}`);
      t.false(field.replace(/Base64$/, '') in properties, `${tool}.${field}`);
    }
    for (const meta of ['charged', 'balance', 'requestId', 'replayed']) t.false(meta in properties, `${tool} has its own ${meta}`);
  }
});
