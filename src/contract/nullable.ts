import { Type, type TSchema, type Static, type StringOptions, type NumberOptions } from '@sinclair/typebox';

/*
 * Nullable fields are written as `type: [T, "null"]` rather than `anyOf`, so that the
 * OpenAPI document (3.1) stays readable and fast-json-stringify can serialise them
 * without trying each branch.
 */
export function NullableString(options: StringOptions = {}) {
  return Type.Unsafe<string | null>({ ...options, type: ['string', 'null'] });
}

export function NullableNumber(options: NumberOptions = {}) {
  return Type.Unsafe<number | null>({ ...options, type: ['number', 'null'] });
}

export function NullableArray<T extends TSchema>(items: T, options: { maxItems?: number; description?: string } = {}) {
  return Type.Unsafe<Static<T>[] | null>({ ...options, type: ['array', 'null'], items });
}
