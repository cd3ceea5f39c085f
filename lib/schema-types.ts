//! TypeBox builders for the two shapes the API's JSON Schemas write their own way: a string out of a
//! list as `enum` (TypeBox's union is an `anyOf` of consts) and a nullable field as a type array
//! (`["string", "null"]`). Both keep the static type TypeBox derives with `Static<>`.
import { type SchemaOptions, type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/** One of `values`, as `{ type: 'string', enum: [...] }`. */
export function StringEnum<const V extends string>(values: readonly V[], options: SchemaOptions = {}): TUnsafe<V> {
  return Type.Unsafe<V>({ type: 'string', enum: [...values], ...options });
}

/** The schema, or null: its `type` becomes `[type, 'null']`. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}
