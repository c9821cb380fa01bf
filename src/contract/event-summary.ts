import { Type, type Static } from '@sinclair/typebox';
import { NullableArray, NullableNumber, NullableString } from './nullable.js';

/** Event item (service-interface 2.2). No property other than these. */
export const EventItemSchema = Type.Object(
  {
    itemId: NullableString(),
    itemName: NullableString(),
    itemQuantity: Type.Integer({ format: 'int32' }),
    itemPrice: Type.Number({ format: 'double' }),
    itemPriceInBaseCurrency: Type.Number({ format: 'double' }),
    itemCategory: NullableString(),
    itemSeller: NullableString(),
    itemSellerCountry: NullableString(),
    itemCurrency: NullableString(),
  },
  { $id: 'EventItem', additionalProperties: false },
);
export type EventItem = Static<typeof EventItemSchema>;

/** Event summary, the 200 body of GET /event/{eventId} (service-interface 2.1). */
export const EventSummarySchema = Type.Object(
  {
    id: NullableString(),
    totalScore: Type.Integer({ format: 'int32' }),
    state: NullableString(),
    eventDate: NullableString({ format: 'date-time', description: 'UTC, shape YYYY-MM-DDThh:mm:ssZ' }),
    amount: NullableNumber({ format: 'double' }),
    amountInBaseCurrency: NullableNumber({ format: 'double' }),
    currency: NullableString(),
    baseCurrency: NullableString(),
    userName: NullableString(),
    userEmail: NullableString(),
    shippingCountry: NullableString(),
    shippingFullName: NullableString(),
    shippingCity: NullableString(),
    shippingRegion: NullableString(),
    shippingZip: NullableString(),
    shippingStreet1: NullableString(),
    shippingStreet2: NullableString(),
    shippingPhone: NullableString(),
    billingCountry: NullableString(),
    billingCity: NullableString(),
    billingRegion: NullableString(),
    billingZip: NullableString(),
    billingStreet1: NullableString(),
    billingStreet2: NullableString(),
    billingPhone: NullableString(),
    userIp: NullableString(),
    allowlistMatch: Type.Boolean(),
    denylistMatch: Type.Boolean(),
    userCreated: NullableString({ format: 'date' }),
    userFullName: NullableString(),
    comments: NullableString(),
    items: NullableArray(EventItemSchema),
  },
  { $id: 'EventSummary', additionalProperties: false },
);
export type EventSummary = Static<typeof EventSummarySchema>;

/** The exact shape of `eventDate` in a summary. */
export const EVENT_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
