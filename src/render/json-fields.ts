/*
 * Looking at a JSON value whose shape is not trusted: is it an object, which of its keys were
 * expected. Nothing here assumes a field exists or has the contract's type.
 */

/** A JSON object (not an array, not null). */
export type Fields = Record<string, unknown>;

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The keys of `fields` that are not in `known`, in the order the service sent them. */
export function unknownKeys(fields: Fields, known: ReadonlySet<string>): string[] {
  return Object.keys(fields).filter((k) => !known.has(k));
}

/** Whether `fields` has at least one of `keys`: if not, it is not the shape expected. */
export function hasAnyKey(fields: Fields, keys: Iterable<string>): boolean {
  for (const key of keys) if (Object.hasOwn(fields, key)) return true;
  return false;
}
