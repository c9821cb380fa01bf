// Varied, valid POST /event payloads for the benchmarks (bench-sandbox, bench-batch): amounts
// from small to large (so every decision occurs), three currencies, eight countries with some
// billing/shipping mismatches, 1 to 3 items, new and old accounts, and emails and IPs drawn from
// pools small enough for the sandbox's velocity rules (SQLite look-ups) to run and fire.
// Seeded: the same options give the same sequence of payloads, whatever the ids.

const CURRENCIES = ['EUR', 'USD', 'GBP'];
const COUNTRIES = ['DE', 'FR', 'GB', 'US', 'NL', 'ES', 'IT', 'PL'];
const CATEGORIES = ['books', 'electronics', 'clothing', 'toys', 'home', 'gift_cards', 'jewelry'];
const DAY_MS = 86_400_000;

/** mulberry32: a small seeded PRNG, so every run sends the same mix of payloads. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Returns a function giving the next POST /event payload, `{ id, body }` (body: the JSON text),
 * with ids `<idPrefix>-1`, `<idPrefix>-2`, … (every id new within one generator).
 *
 * `repeatShare` (default 1) is the share of events from a returning buyer, whose email and IP
 * come from the pools; every other event has an email of its own (and an IP shared by at most
 * one event per generator), so no velocity rule fires for it and all decisions keep occurring
 * however many events the pools have already seen.
 *
 * @param {{ idPrefix: string, seed?: number, emailPoolSize?: number, ipPoolSize?: number, repeatShare?: number }} options
 */
export function createEventGenerator({
  idPrefix,
  seed = 20_240_601,
  emailPoolSize = 2000,
  ipPoolSize = 500,
  repeatShare = 1,
}) {
  const random = seededRandom(seed);
  const int = (min, max) => min + Math.floor(random() * (max - min + 1));
  const pick = (list) => list[Math.floor(random() * list.length)];
  const money = (min, max) => Math.round((min + random() * (max - min)) * 100) / 100;
  const now = Date.now();
  const daysAgo = (days) => new Date(now - days * DAY_MS).toISOString().slice(0, 10);
  // About 65% of amounts under 1000, 30% from 1000 to 5000, 5% above 5000 (before conversion).
  const amount = () => {
    const r = random();
    return r < 0.65 ? money(5, 1000) : r < 0.95 ? money(1000, 5000) : money(5000, 10_000);
  };
  const item = (n) => ({
    itemId: `sku-${int(1, 5000)}`,
    itemName: `Bench item ${n}`,
    itemQuantity: int(1, 4),
    itemPrice: money(1, 300),
    itemCategory: pick(CATEGORIES),
  });
  let sequence = 0;

  return () => {
    const n = ++sequence;
    const id = `${idPrefix}-${n}`;
    // No draw at all when every buyer returns, so that setting keeps its sequence of payloads.
    const returning = repeatShare >= 1 || random() < repeatShare;
    const user = returning ? int(0, emailPoolSize - 1) : n;
    const ip = returning ? int(0, ipPoolSize - 1) : n;
    const billingCountry = pick(COUNTRIES);
    const payload = {
      id,
      amount: amount(),
      currency: pick(CURRENCIES),
      userEmail: returning
        ? `buyer${user}@${user % 25 === 0 ? 'mailinator.com' : 'example.com'}`
        : `${idPrefix}-buyer${n}@example.com`,
      userIp: returning
        ? `10.20.${Math.floor(ip / 250)}.${(ip % 250) + 1}`
        : `10.${100 + (Math.floor(n / 65_536) % 100)}.${Math.floor(n / 256) % 256}.${n % 256}`,
      userName: returning ? `buyer${user}` : `${idPrefix}-buyer${n}`,
      billingCountry,
      shippingCountry: random() < 0.8 ? billingCountry : pick(COUNTRIES),
      userCreated: daysAgo(random() < 0.1 ? int(0, 6) : int(30, 3000)),
      items: Array.from({ length: int(1, 3) }, (_, i) => item(i + 1)),
    };
    return { id, body: JSON.stringify(payload) };
  };
}
