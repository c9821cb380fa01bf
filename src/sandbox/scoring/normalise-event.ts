import { isIP } from 'node:net';
import type { EventItem, EventPayload, EventSummary } from '../../contract/index.js';
import type { SandboxConfig } from '../config/sandbox-config.js';

/*
 * From a schema-valid payload to what the sandbox stores and scores: the checks a schema
 * cannot make (convertible currency, IP address, real dates), the summary as the service
 * returns it (every field present, null where absent), and the facts that rules read.
 */

export interface NormalisedEvent {
  /** The summary without state and comments, which change over the event's life. */
  summary: Omit<EventSummary, 'state' | 'comments' | 'allowlistMatch' | 'denylistMatch'>;
  comments: string | null;
  eventTs: number;
  facts: Facts;
}

/** What a rule's `when` expression can read (`{"var": "name"}`). */
export interface Facts {
  [field: string]: unknown;
  amountInBaseCurrency: number;
  emailDomain: string | null;
  accountAgeDays: number | null;
  itemCount: number;
  itemCategories: string[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** `YYYY-MM-DDThh:mm:ssZ`, the only shape the interface allows for eventDate. */
export function formatEventDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The checks a schema cannot make — a currency the rate table converts, a real IP address,
 * a date that exists — on the raw body, so that one 422 names every bad field even when the
 * schema found others. Fields of the wrong type are left to the schema's codes.
 */
export function valueErrors(body: unknown, config: SandboxConfig): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const b = body as Record<string, unknown>;
  const codes: string[] = [];
  const currencyKnown = (c: unknown) => typeof c !== 'string' || !/^[A-Z]{3}$/.test(c) || config.rates[c] !== undefined;
  if (!currencyKnown(b.currency)) codes.push('currency:UNSUPPORTED_CURRENCY');
  if (typeof b.eventDate === 'string' && Number.isNaN(Date.parse(b.eventDate))) codes.push('eventDate:INVALID_FORMAT');
  if (typeof b.userIp === 'string' && isIP(b.userIp) === 0) codes.push('userIp:INVALID_FORMAT');
  if (typeof b.userCreated === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(b.userCreated)) {
    const ms = Date.parse(`${b.userCreated}T00:00:00Z`);
    // Date.parse rolls 2024-02-30 over to March; a real calendar date reads back the same.
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== b.userCreated)
      codes.push('userCreated:INVALID_FORMAT');
  }
  if (Array.isArray(b.items)) {
    b.items.forEach((item: unknown, i) => {
      const c = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).itemCurrency : undefined;
      if (c != null && c !== b.currency && !currencyKnown(c))
        codes.push(`items[${i}].itemCurrency:UNSUPPORTED_CURRENCY`);
    });
  }
  return codes;
}

/** From a payload that passed the schema and valueErrors to what is stored and scored. */
export function normaliseEvent(
  payload: EventPayload,
  id: string,
  receivedAt: number,
  config: SandboxConfig,
): NormalisedEvent {
  const rate = (currency: string) => config.rates[currency]!;
  const eventMs = Math.floor((payload.eventDate != null ? Date.parse(payload.eventDate) : receivedAt) / 1000) * 1000;
  const createdMs = payload.userCreated != null ? Date.parse(`${payload.userCreated}T00:00:00Z`) : null;

  const eventRate = rate(payload.currency);
  const items: EventItem[] | null =
    payload.items == null
      ? null
      : payload.items.map((item) => {
          const currency = item.itemCurrency ?? payload.currency;
          const itemRate = currency === payload.currency ? eventRate : rate(currency);
          return {
            itemId: item.itemId ?? null,
            itemName: item.itemName ?? null,
            itemQuantity: item.itemQuantity,
            itemPrice: item.itemPrice,
            itemPriceInBaseCurrency: round2(item.itemPrice * itemRate),
            itemCategory: item.itemCategory ?? null,
            itemSeller: item.itemSeller ?? null,
            itemSellerCountry: item.itemSellerCountry ?? null,
            itemCurrency: currency,
          };
        });
  const amountInBaseCurrency = round2(payload.amount * eventRate);
  const summary: NormalisedEvent['summary'] = {
    id,
    totalScore: 0,
    eventDate: formatEventDate(eventMs),
    amount: payload.amount,
    amountInBaseCurrency,
    currency: payload.currency,
    baseCurrency: config.baseCurrency,
    userName: payload.userName ?? null,
    userEmail: payload.userEmail ?? null,
    shippingCountry: payload.shippingCountry ?? null,
    shippingFullName: payload.shippingFullName ?? null,
    shippingCity: payload.shippingCity ?? null,
    shippingRegion: payload.shippingRegion ?? null,
    shippingZip: payload.shippingZip ?? null,
    shippingStreet1: payload.shippingStreet1 ?? null,
    shippingStreet2: payload.shippingStreet2 ?? null,
    shippingPhone: payload.shippingPhone ?? null,
    billingCountry: payload.billingCountry ?? null,
    billingCity: payload.billingCity ?? null,
    billingRegion: payload.billingRegion ?? null,
    billingZip: payload.billingZip ?? null,
    billingStreet1: payload.billingStreet1 ?? null,
    billingStreet2: payload.billingStreet2 ?? null,
    billingPhone: payload.billingPhone ?? null,
    userIp: payload.userIp ?? null,
    userCreated: payload.userCreated ?? null,
    userFullName: payload.userFullName ?? null,
    items,
  };

  const email = summary.userEmail;
  const at = email ? email.lastIndexOf('@') : -1;
  // Object.assign rather than spread: this runs for every event, and copies 30 fields.
  const facts: Facts = Object.assign({}, summary, {
    comments: payload.comments ?? null,
    amountInBaseCurrency,
    emailDomain: email && at >= 0 ? email.slice(at + 1).toLowerCase() : null,
    accountAgeDays: createdMs === null ? null : Math.floor((eventMs - createdMs) / 86_400_000),
    itemCount: (items ?? []).reduce((n, item) => n + item.itemQuantity, 0),
    itemCategories: (items ?? []).flatMap((item) => (item.itemCategory ? [item.itemCategory.toLowerCase()] : [])),
  });
  return { summary, comments: payload.comments ?? null, eventTs: eventMs / 1000, facts };
}
