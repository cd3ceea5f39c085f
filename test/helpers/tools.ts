//! Helpers for unit tests that call tool handlers directly: the tool's schemas compiled as the
//! API compiles them (the same Ajv set-up), and an assertion on the ServiceError a call fails with.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { ExecutionContext } from 'ava';
import { ServiceError, type ErrorCode } from '../../contracts/errors.js';
import { createAjv } from '../../lib/json-schema.js';
import { publishedToolSchemas } from '../../domain/tools/schemas.js';

export interface CompiledToolSchemas {
  /** Validates in place, filling in defaults, like the API before it starts a workflow. */
  input: ValidateFunction;
  output: ValidateFunction;
}

export function compileToolSchemas(tool: string): CompiledToolSchemas {
  const ajv = createAjv();
  const { input, output } = publishedToolSchemas(tool);
  return { input: ajv.compile(input), output: ajv.compile(output) };
}

/** Input as the API would hand it on: validated, defaults applied. Fails the test if invalid. */
export function validInput<T extends object>(t: ExecutionContext, validate: ValidateFunction, input: Partial<T>): T {
  const copy = structuredClone(input);
  t.true(validate(copy), JSON.stringify(validate.errors));
  return copy as T;
}

/**
 * Asserts that `call` fails with a ServiceError of `code` (and, for a 400, naming `field`), and
 * returns it for further checks.
 */
export async function rejectsWith(
  t: ExecutionContext,
  call: Promise<unknown> | (() => unknown),
  code: ErrorCode,
  field?: string,
): Promise<ServiceError> {
  const promise = typeof call === 'function' ? Promise.resolve().then(call) : call;
  const err = await t.throwsAsync(promise, { instanceOf: ServiceError });
  if (!err) throw new Error(`expected a ServiceError ${code}`); // throwsAsync has already failed the test
  t.is(err.code, code, err.message);
  if (field !== undefined)
    t.deepEqual(
      (err.extras.errors as { field: string }[]).map((e) => e.field),
      [field],
    );
  return err;
}
