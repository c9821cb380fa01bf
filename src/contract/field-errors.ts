/*
 * Turns JSON-schema validation errors (Ajv's shape) into the contract's field codes,
 * `field:CODE`, e.g. `amount:REQUIRED`, `items[2].itemPrice:OUT_OF_RANGE`,
 * `userEmial:UNKNOWN_FIELD`. The sandbox answers 422 with these; the CLI can use the
 * same function to validate a payload before sending it.
 */

/** The part of an Ajv ErrorObject this needs (kept structural so the contract needs no Ajv import). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

const CODE_BY_KEYWORD: Record<string, string> = {
  type: 'INVALID_TYPE',
  format: 'INVALID_FORMAT',
  pattern: 'INVALID_FORMAT',
  maxLength: 'TOO_LONG',
  minLength: 'TOO_SHORT',
  minimum: 'OUT_OF_RANGE',
  maximum: 'OUT_OF_RANGE',
  exclusiveMinimum: 'OUT_OF_RANGE',
  exclusiveMaximum: 'OUT_OF_RANGE',
  maxItems: 'TOO_MANY_ITEMS',
  minProperties: 'EMPTY',
  enum: 'INVALID_VALUE',
  const: 'INVALID_VALUE',
};

/** `/items/2/itemPrice` → `items[2].itemPrice`; the root is `body`. */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let path = '';
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) path += `[${part}]`;
    else path += path ? `.${part}` : part;
  }
  return path || 'body';
}

export function fieldCodes(errors: readonly SchemaError[]): string[] {
  const codes = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'required') {
      codes.add(`${fieldPath(e.instancePath, String(e.params.missingProperty))}:REQUIRED`);
    } else if (e.keyword === 'additionalProperties') {
      codes.add(`${fieldPath(e.instancePath, String(e.params.additionalProperty))}:UNKNOWN_FIELD`);
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') {
      // The branch errors that led here are reported on their own.
    } else {
      codes.add(`${fieldPath(e.instancePath)}:${CODE_BY_KEYWORD[e.keyword] ?? 'INVALID'}`);
    }
  }
  return [...codes];
}
