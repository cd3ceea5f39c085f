//! Properties of the API's input checks (Ajv schemas, then each tool's precheck): whatever JSON
//! object arrives, they return or throw a client error with a contract code, never anything else
//! (which would be a 500). Bodies are arbitrary JSON and mutations of each tool's example, with
//! values chosen to hit the parsers: odd URLs, hosts, hashes, huge and fractional numbers.
import test from 'ava';
import fc from 'fast-check';
import { propertyRuns } from './property-runs.js';
import { createValidators } from '../../api/validation.js';
import { CATALOGUE, findTool } from '../../domain/tools/catalogue.js';
import { ERRORS, ServiceError, isErrorCode } from '../../contracts/errors.js';
import { publishedCatalogueSchemas } from '../../domain/tools/schemas.js';

const schemas = publishedCatalogueSchemas();
const validators = createValidators(schemas);
const RUNS = propertyRuns(100);

/** Strings that reach deep into the prechecks' parsers. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'http://[::ffff:127.0.0.1]/',
    'http://0x7f.1/',
    'http://2130706433/',
    'https://user:pw@host/',
    'ftp://x/',
    'http://',
    '//x',
    'http://a..b/',
    'http://[fe80::1%25eth0]/',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'http://xn--/',
    `http://${'a'.repeat(300)}.com/`,
    'localhost',
    '::1',
    '[::1]',
    '$2b$31$' + 'a'.repeat(53),
    '$2y$04$abc',
    '$argon2id$v=19$m=4194304,t=3,p=4$c2FsdHNhbHQ$aGFzaA',
    '$argon2id$v=16$m=1,t=1,p=1$$',
    '$argon2d$m=1$x$y',
    '\u0000',
    '\ud800',
    '💥'.repeat(100),
    'A'.repeat(5000),
    '{"a":1}',
    '[]',
    'GET',
    'get',
    'TRACE',
  ),
  fc.domain(),
  fc.ipV4(),
  fc.ipV6(),
);

const anyValue = fc.oneof(
  { weight: 3, arbitrary: nasty },
  {
    weight: 2,
    arbitrary: fc.oneof(fc.integer(), fc.integer({ min: -5, max: 70_000 }), fc.double(), fc.constantFrom(0, -0, 1e308, 2 ** 53 + 1, NaN)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** The tool's example with some fields replaced, dropped or added. */
function mutatedExample(tool: string): fc.Arbitrary<Record<string, unknown>> {
  const input = schemas.get(tool)!.input as { examples?: Record<string, unknown>[]; properties?: Record<string, unknown> };
  const base = input.examples?.[0] ?? {};
  const keys = [...new Set([...Object.keys(base), ...Object.keys(input.properties ?? {})])];
  return fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...keys), anyValue, { maxKeys: keys.length }),
      drop: fc.subarray(keys, { maxLength: Math.min(2, keys.length) }),
      extra: fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 1 }),
      withExtra: fc.integer({ min: 0, max: 4 }),
    })
    .map(({ replace, drop, extra, withExtra }) => {
      const body: Record<string, unknown> = { ...structuredClone(base), ...replace };
      for (const k of drop) delete body[k];
      return withExtra === 0 ? { ...body, ...extra } : body;
    });
}

/** What the API does with a parsed body: validate (defaults in place), then precheck. */
function check(tool: string, body: Record<string, unknown>): void {
  const input = validators.validate(tool, body);
  findTool(tool)!.precheck?.(input);
}

/** The only acceptable failures: a client error with a contract code, and for 400 the fields named. */
function assertClientError(err: unknown): void {
  if (!(err instanceof ServiceError)) throw new Error(`threw ${String(err)} (${(err as Error)?.stack})`);
  if (!isErrorCode(err.code)) throw new Error(`code ${err.code} is not in the contract`);
  const status = ERRORS[err.code].status;
  if (status !== 400 && status !== 422) throw new Error(`a precheck answered ${status} ${err.code}`);
  if (err.code === 'validation_failed') {
    const errors = (err.extras as { errors?: Array<{ field: string; message: string }> }).errors;
    if (
      !errors?.length ||
      errors.some((e) => typeof e.field !== 'string' || (!e.field.startsWith('/') && !e.field.startsWith('header:')))
    ) {
      throw new Error(`validation_failed without the fields named: ${JSON.stringify(err.extras)}`);
    }
  }
}

for (const tool of CATALOGUE.keys()) {
  test(`${tool}: any JSON object is accepted or refused with a contract code, never thrown otherwise`, (t) => {
    const bodies = fc.oneof(mutatedExample(tool), fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })));
    fc.assert(
      fc.property(bodies, (body) => {
        try {
          check(tool, body);
        } catch (err) {
          assertClientError(err);
        }
      }),
      { numRuns: RUNS },
    );
    t.pass();
  });
}

test('every tool example passes validation and its precheck unchanged', (t) => {
  for (const tool of CATALOGUE.keys()) {
    const example = (schemas.get(tool)!.input as { examples?: Record<string, unknown>[] }).examples?.[0];
    t.truthy(example, `${tool} has an example`);
    t.notThrows(() => check(tool, structuredClone(example!)), tool);
  }
});
