/*
 * A currency as the interface writes it (ISO 4217, three capitals), and the base currency an
 * event summary names: what submit's batch learns once per run and evaluate reads, one reading of
 * a tolerant answer for both.
 */

export const CURRENCY_PATTERN = '^[A-Z]{3}$';
const CODE = new RegExp(CURRENCY_PATTERN);

export const isCurrencyCode = (value: unknown): value is string => typeof value === 'string' && CODE.test(value);

/** The summary's `baseCurrency` when it is a currency code; null for anything else. */
export function baseCurrencyOf(summary: unknown): string | null {
  const code = (summary as { baseCurrency?: unknown } | null | undefined)?.baseCurrency;
  return isCurrencyCode(code) ? code : null;
}
