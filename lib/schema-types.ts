//! TypeBox builders for the shapes the API's JSON Schemas write their own way: a string (or
//! integer) out of a list as `enum` (TypeBox's union is an `anyOf` of consts), a nullable field as
//! a type array (`["string", "null"]`), a request body (an object that takes no field it does not
//! name), a map as `additionalProperties`, a field whose `default` validation fills in (and the
//! type of an input once it has), and the fields answers share (ids, times, credits). Each keeps
//! the static type TypeBox derives with `Static<>`.
import {
  type ObjectOptions,
  type SchemaOptions,
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';

/** One of `values`, as `{ type: 'string', enum: [...] }`. */
export function StringEnum<const V extends string>(values: readonly V[], options: SchemaOptions = {}): TUnsafe<V> {
  return Type.Unsafe<V>({ type: 'string', enum: [...values], ...options });
}

/** One of `values`, as `{ type: 'integer', enum: [...] }`. */
export function IntegerEnum<const V extends number>(values: readonly V[], options: SchemaOptions = {}): TUnsafe<V> {
  return Type.Unsafe<V>({ type: 'integer', enum: [...values], ...options });
}

/** An object of any keys whose values are `values` (`additionalProperties`; TypeBox's record writes `patternProperties`). */
export function StringMap<T extends TSchema>(values: T, options: ObjectOptions = {}): TUnsafe<Record<string, Static<T>>> {
  return Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: values, ...options });
}

/**
 * An optional field with a `default`: a request may leave it out, and validation (Ajv's
 * `useDefaults`) fills it in, so the input a handler receives always has it (`Validated<>`).
 */
export function Defaulted<T extends TSchema>(schema: T, value: Static<T>): TOptional<T & { default: Static<T> }> {
  // TypeBox types an optional of a generic schema as a conditional type, which it always resolves to this.
  return Type.Optional({ ...schema, default: value }) as TOptional<T & { default: Static<T> }>;
}

/** The fields of an object schema declared `Defaulted`. */
type DefaultedKeys<P extends TProperties> = { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];

/** An object schema's static type once validated: its `Defaulted` fields present. */
export type Validated<T extends TObject> = Flat<
  Omit<Static<T>, DefaultedKeys<T['properties']>> & {
    [K in DefaultedKeys<T['properties']> & keyof Static<T>]-?: Exclude<Static<T>[K], undefined>;
  }
>;
type Flat<T> = { [K in keyof T]: T[K] };

/** One of `values`, or null: null is in the `enum` too, so that the enum lets it through. */
export function NullableStringEnum<const V extends string>(values: readonly V[], options: SchemaOptions = {}): TUnsafe<V | null> {
  return Type.Unsafe<V | null>({ type: ['string', 'null'], enum: [...values, null], ...options });
}

/** The schema, or null, as an `anyOf` of the two: how the tools' schemas write a field that may be null. */
export function OrNull<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/** The schema, or null: its `type` becomes `[type, 'null']`. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

/** The OpenAPI document's component `name` by reference (`$ref`), typed as `schema`, its definition. */
export function ComponentRef<T extends TSchema>(name: string, schema: T): TUnsafe<Static<T>> {
  void schema; // only its type is needed: the document holds the component once, under `name`
  return Type.Unsafe<Static<T>>({ $ref: `#/components/schemas/${name}` });
}

/** An object with these properties and no other (`additionalProperties: false`): what every request body is. */
export function ClosedObject<P extends TProperties>(properties: P, options: ObjectOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** The `pattern` of a UTC time as `Date.prototype.toISOString` writes it (`2026-01-01T12:00:00.000Z`). */
export const ISO_UTC_PATTERN = '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$';

/** A time as RFC 3339 text (`format: date-time`). */
export const DateTime = (description: string) => Type.String({ format: 'date-time', description });

// `examples` make the reference's samples look like real answers rather than "string".
/** An id of the service's: its prefix, `_`, then letters and digits. */
export const Id = (prefix: string, description: string) =>
  Type.String({ pattern: `^${prefix}_[0-9A-Za-z]+$`, description, examples: [`${prefix}_4hQ2mV8kZr1xYt6pW0nLbC`] });
/** A moment an answer gives: a Date in the service, RFC 3339 text once written as JSON. */
export const Timestamp = (description: string) =>
  Type.Unsafe<Date>({ type: 'string', format: 'date-time', description, examples: ['2026-01-01T12:00:00.000Z'] });
/** A moment an answer gives already as RFC 3339 text (a view that events carry as they are). */
export const TimestampText = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-01-01T12:00:00.000Z'] });
/** The same, or null: a moment that may not have come. */
export const NullableTimestampText = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time', description, examples: [null] });
/** A moment that may not have come: null until then. */
export const NullableTimestamp = (description: string) =>
  Type.Unsafe<Date | null>({ type: ['string', 'null'], format: 'date-time', description, examples: [null] });
/** A key's or a token's first 12 characters, shown to recognise it by. */
export const KeyPrefix = Type.String({ description: 'First 12 characters of the key, for recognising it.', examples: ['utk_8Fq2ZrW1'] });
/** A number of credits. */
export const Credits = (description: string) => Type.Integer({ minimum: 0, description });
