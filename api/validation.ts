//! Ajv validation of tool input, compiled once from the tool schemas. Defaults are applied here,
//! so the workflow and the tool see complete input.
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { createAjv } from '../lib/json-schema.js';
import { ServiceError } from '../contracts/errors.js';
import type { ToolSchemas } from '../domain/tools/index.js';

export interface FieldError {
  field: string;
  message: string;
}

export function fieldErrors(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    let field = e.instancePath || '/';
    if (e.keyword === 'required') field = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties')
      field = `${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}`;
    const message =
      e.keyword === 'additionalProperties'
        ? 'is not a known field'
        : e.keyword === 'required'
          ? 'is required'
          : (e.message ?? 'is invalid');
    const key = `${field} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message });
  }
  return out;
}

export function validationProblem(errors: FieldError[]): ServiceError {
  const summary = errors.map((e) => `${e.field} ${e.message}`).join('; ');
  return new ServiceError('validation_failed', `The input is invalid: ${summary}.`, { errors });
}

export function createValidators(schemas: Map<string, ToolSchemas>) {
  const ajv = createAjv();
  const compiled = new Map<string, ValidateFunction>();
  for (const [name, s] of schemas) compiled.set(name, ajv.compile(s.input));

  return {
    /** Validates in place (defaults are filled in) and throws 400 naming every bad field. */
    validate(tool: string, input: Record<string, unknown>): Record<string, unknown> {
      const fn = compiled.get(tool);
      if (!fn) throw new Error(`no schema for ${tool}`);
      if (!fn(input)) throw validationProblem(fieldErrors(fn.errors ?? []));
      return input;
    },
  };
}

export type Validators = ReturnType<typeof createValidators>;

type Refusal = (errors: FieldError[]) => ServiceError;

/**
 * A validator for a request body of the account and operator APIs: the body, typed as its TypeBox
 * schema says (a plain JSON Schema gives the plain object); a body it refuses throws `refuse`'s
 * error (400 `validation_failed` unless the feature names its problems otherwise).
 */
export function compileBodySchema<T extends TSchema>(schema: T, refuse?: Refusal): (body: Record<string, unknown>) => Static<T>;
export function compileBodySchema(
  schema: Record<string, unknown>,
  refuse?: Refusal,
): (body: Record<string, unknown>) => Record<string, unknown>;
export function compileBodySchema(schema: Record<string, unknown>, refuse: Refusal = validationProblem) {
  const fn = createAjv().compile(schema);
  return (body: Record<string, unknown>) => {
    if (!fn(body)) throw refuse(fieldErrors(fn.errors ?? []));
    return body;
  };
}

/** Validators of a route's bodies by name: `check(name, body)` is the body, typed as that schema says. */
export function compileBodySchemas<S extends Record<string, TSchema>>(schemas: S) {
  const compiled = new Map(Object.entries(schemas).map(([name, schema]) => [name, compileBodySchema(schema)]));
  return <K extends keyof S & string>(name: K, body: Record<string, unknown>) => compiled.get(name)!(body) as Static<S[K]>;
}
