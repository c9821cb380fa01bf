import { Type, type Static } from '@sinclair/typebox';
import { CURRENCY_PATTERN } from './currency.js';
import { EVENT_ID_PATTERN, MAX_COMMENT_LENGTH } from './limits.js';
import { NullableString } from './nullable.js';

/*
 * The body of POST /event (contract.md, "POST /event: request payload"). The interface does
 * not show it; these are the names the sandbox accepts and the CLI validates offline against.
 * Optional fields may also be sent as null, which means the same as leaving them out.
 */

export const MAX_STRING = 1024;
export const MAX_ITEMS = 500;
/** Largest amount or price the sandbox accepts: beyond it, base-currency sums lose meaning. */
export const MAX_AMOUNT = 1e12;

export { EVENT_ID_PATTERN };
const COUNTRY = { pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' };
const CURRENCY = { pattern: CURRENCY_PATTERN, description: 'ISO 4217' };

const text = (description?: string) =>
  NullableString({ maxLength: MAX_STRING, ...(description ? { description } : {}) });
const country = () => NullableString(COUNTRY);

export const EventPayloadItemSchema = Type.Object(
  {
    itemId: Type.Optional(text()),
    itemName: Type.Optional(text()),
    itemQuantity: Type.Integer({ minimum: 1, maximum: 2147483647 }),
    itemPrice: Type.Number({ minimum: 0, maximum: MAX_AMOUNT }),
    itemCategory: Type.Optional(text()),
    itemSeller: Type.Optional(text()),
    itemSellerCountry: Type.Optional(country()),
    itemCurrency: Type.Optional(NullableString({ ...CURRENCY, description: 'defaults to the event currency' })),
  },
  { additionalProperties: false },
);

export const EventPayloadSchema = Type.Object(
  {
    id: Type.Optional(
      NullableString({ pattern: EVENT_ID_PATTERN, description: "the merchant's own event id; generated when absent" }),
    ),
    eventDate: Type.Optional(
      NullableString({ format: 'date-time', description: 'RFC 3339; defaults to receipt time' }),
    ),
    amount: Type.Number({ minimum: 0, maximum: MAX_AMOUNT }),
    currency: Type.String(CURRENCY),
    userName: Type.Optional(text()),
    userEmail: Type.Optional(text()),
    userFullName: Type.Optional(text()),
    userIp: Type.Optional(text('IPv4 or IPv6 address')),
    userCreated: Type.Optional(NullableString({ format: 'date' })),
    comments: Type.Optional(NullableString({ maxLength: MAX_COMMENT_LENGTH })),
    shippingCountry: Type.Optional(country()),
    shippingFullName: Type.Optional(text()),
    shippingCity: Type.Optional(text()),
    shippingRegion: Type.Optional(text()),
    shippingZip: Type.Optional(text()),
    shippingStreet1: Type.Optional(text()),
    shippingStreet2: Type.Optional(text()),
    shippingPhone: Type.Optional(text()),
    billingCountry: Type.Optional(country()),
    billingCity: Type.Optional(text()),
    billingRegion: Type.Optional(text()),
    billingZip: Type.Optional(text()),
    billingStreet1: Type.Optional(text()),
    billingStreet2: Type.Optional(text()),
    billingPhone: Type.Optional(text()),
    items: Type.Optional(
      Type.Unsafe<Static<typeof EventPayloadItemSchema>[] | null>({
        type: ['array', 'null'],
        maxItems: MAX_ITEMS,
        items: EventPayloadItemSchema,
      }),
    ),
  },
  { $id: 'EventPayload', additionalProperties: false },
);
export type EventPayload = Static<typeof EventPayloadSchema>;
export type EventPayloadItem = Static<typeof EventPayloadItemSchema>;
