//! The one Ajv set-up (JSON Schema draft 2020-12): the options and formats the API validates tool
//! input and request bodies with. Tests compile schemas through it too, so a unit test validates
//! exactly as the service does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS; under ESM its default export is the module object.
export const addFormats = ((addFormatsImport as unknown as { default?: typeof addFormatsImport }).default ??
  addFormatsImport) as unknown as (ajv: Ajv2020) => void;

/**
 * An Ajv instance: every error reported (a 400 names every bad field), `default`s filled in
 * (the workflow and the tool see complete input), formats checked, `example` allowed as an
 * annotation (the tool schemas carry examples for the docs).
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addKeyword('example');
  return ajv;
}
