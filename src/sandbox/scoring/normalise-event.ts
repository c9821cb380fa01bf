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

export type NormaliseResult = { ok: true; event: NormalisedEvent } | { ok: false; codes: string[] };

export function normaliseEvent(payload: EventPayload, id: string, receivedAt: number, config: SandboxConfig): NormaliseResult {
  const codes: string[] = [];
  const rate = (currency: string, field: string) => {
    const r = config.rates[currency];
    if (r === undefined) codes.push(`${field}:UNSUPPORTED_CURRENCY`);
    return r ?? 0;
  };

  let eventMs = receivedAt;
  if (payload.eventDate != null) {
    eventMs = Date.parse(payload.eventDate);
    if (Number.isNaN(eventMs)) codes.push('eventDate:INVALID_FORMAT');
  }
  eventMs = Math.floor(eventMs / 1000) * 1000;

  if (payload.userIp != null && isIP(payload.userIp) === 0) codes.push('userIp:INVALID_FORMAT');
  let createdMs: number | null = null;
  if (payload.userCreated != null) {
    createdMs = Date.parse(`${payload.userCreated}T00:00:00Z`);
    // Date.parse rolls 2024-02-30 over to March; a real calendar date reads back the same.
    if (Number.isNaN(createdMs) || new Date(createdMs).toISOString().slice(0, 10) !== payload.userCreated) {
      codes.push('userCreated:INVALID_FORMAT');
    }
  }

  const eventRate = rate(payload.currency, 'currency');
  const items: EventItem[] | null =
    payload.items == null
      ? null
      : payload.items.map((item, i) => {
          const currency = item.itemCurrency ?? payload.currency;
          const itemRate = currency === payload.currency ? eventRate : rate(currency, `items[${i}].itemCurrency`);
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
  if (codes.length > 0) return { ok: false, codes };

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
  const facts: Facts = {
    ...summary,
    comments: payload.comments ?? null,
    amountInBaseCurrency,
    emailDomain: email && at >= 0 ? email.slice(at + 1).toLowerCase() : null,
    accountAgeDays: createdMs === null ? null : Math.floor((eventMs - createdMs) / 86_400_000),
    itemCount: (items ?? []).reduce((n, item) => n + item.itemQuantity, 0),
    itemCategories: (items ?? []).flatMap((item) => (item.itemCategory ? [item.itemCategory.toLowerCase()] : [])),
  };
  return { ok: true, event: { summary, comments: payload.comments ?? null, eventTs: eventMs / 1000, facts } };
}
