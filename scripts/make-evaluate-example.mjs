// Writes examples/evaluate/: events.jsonl (screened by the README's tour) and chargebacks.csv
// (what came back), from a seeded generator, so that the figures of `fraudctl evaluate` mean
// something and are the same on every machine. Run again after changing it:
//   node scripts/make-evaluate-example.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'evaluate');
const EVENTS = 800;
const START = Date.parse('2026-09-07T00:00:00Z'); // a Monday; eight weeks of orders
const SPAN = 8 * 7 * 86_400_000;

/** mulberry32: a small seeded generator, so the files are the same at every run. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20261204);
const pick = (list) => list[Math.floor(random() * list.length)];
const chance = (p) => random() < p;
const money = (n) => Math.round(n * 100) / 100;
/** About `median`, spread as order amounts are (log-normal). */
const amountAround = (median) => money(median * Math.exp((random() + random() + random() - 1.5) * 1.2));
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const day = (ms) => new Date(ms).toISOString().slice(0, 10);

const COUNTRIES = ['DE', 'FR', 'NL', 'AT', 'BE', 'ES', 'IT'];
const CATEGORIES = ['books', 'clothing', 'electronics', 'home', 'toys'];
const RISKY = ['gift_cards', 'prepaid_cards', 'jewelry'];
const DISPOSABLE = ['mailinator.com', 'yopmail.com', 'guerrillamail.com'];

const events = [];
const fraud = new Set();
let n = 0;
const id = () => `ex-${String(++n).padStart(4, '0')}`;

function order({ at, email, ip, amount, billing, shipping, created, categories, currency = 'EUR' }) {
  const items = categories.map((category, i) => ({
    itemId: `sku-${Math.floor(random() * 900) + 100}`,
    itemName: `${category} item ${i + 1}`,
    itemQuantity: 1,
    itemPrice: money(amount / categories.length),
    itemCategory: category,
  }));
  return {
    id: id(),
    eventDate: iso(at),
    amount,
    currency,
    userEmail: email,
    userIp: ip,
    userCreated: day(created),
    billingCountry: billing,
    shippingCountry: shipping,
    items,
  };
}

const customers = Array.from({ length: 300 }, (_, i) => ({
  email: `customer${i}@example.com`,
  ip: `198.51.100.${i % 250}`,
  country: pick(COUNTRIES),
  since: START - (30 + Math.floor(random() * 900)) * 86_400_000,
}));

while (events.length < EVENTS) {
  const at = START + Math.floor(random() * SPAN);
  const kind = random();
  if (kind < 0.035) {
    // A card-testing or account-takeover ring: one new account, several orders within the hour.
    const email = `buyer${Math.floor(random() * 1e6)}@${pick(DISPOSABLE)}`;
    const ip = `203.0.113.${Math.floor(random() * 60)}`;
    const burst = 4 + Math.floor(random() * 4);
    for (let k = 0; k < burst; k++) {
      const e = order({
        at: at + k * 7 * 60_000,
        email,
        ip,
        amount: amountAround(180),
        billing: 'DE',
        shipping: pick(['NG', 'RU', 'BR']),
        created: at - 86_400_000,
        categories: [pick(RISKY)],
      });
      events.push(e);
      fraud.add(e.id);
    }
  } else if (kind < 0.06) {
    // Stolen card, resold goods: a high amount shipped abroad, an account days old.
    const e = order({
      at,
      email: `shop${Math.floor(random() * 1e6)}@example.org`,
      ip: `192.0.2.${Math.floor(random() * 250)}`,
      amount: amountAround(1400),
      billing: pick(COUNTRIES),
      shipping: pick(['US', 'GB', 'UA']),
      created: at - Math.floor(random() * 5) * 86_400_000,
      categories: ['electronics', pick(RISKY)],
    });
    events.push(e);
    fraud.add(e.id);
  } else if (kind < 0.075) {
    // Fraud that looks like a good customer's order (a taken-over account): the rules miss it.
    const c = pick(customers);
    const e = order({
      at,
      email: c.email,
      ip: `192.0.2.${Math.floor(random() * 250)}`,
      amount: amountAround(120),
      billing: c.country,
      shipping: c.country,
      created: c.since,
      categories: [pick(CATEGORIES)],
    });
    events.push(e);
    fraud.add(e.id);
  } else {
    // A good customer: now and then abroad (a mismatch), a big basket, a new account.
    const c = pick(customers);
    const abroad = chance(0.08);
    const big = chance(0.06);
    const e = order({
      at,
      email: c.email,
      ip: c.ip,
      amount: big ? amountAround(1600) : amountAround(70),
      billing: c.country,
      shipping: abroad ? pick(COUNTRIES.filter((x) => x !== c.country)) : c.country,
      created: chance(0.05) ? at - 2 * 86_400_000 : c.since,
      categories: Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
        chance(0.03) ? pick(RISKY) : pick(CATEGORIES),
      ),
      currency: chance(0.1) ? pick(['USD', 'GBP']) : 'EUR',
    });
    events.push(e);
  }
}
events.length = EVENTS;
// The service screens them in the order they happened (velocity counts the orders before each).
events.sort((a, b) => (a.eventDate < b.eventDate ? -1 : a.eventDate > b.eventDate ? 1 : 0));

// What came back: chargebacks and the team's confirmed fraud for most of it (some fraud is never
// reported), and disputes that were not fraud.
const rows = ['id,reason,reported'];
for (const e of events) {
  const reported = day(Date.parse(e.eventDate) + (10 + Math.floor(random() * 50)) * 86_400_000);
  if (fraud.has(e.id) && chance(0.85)) rows.push(`${e.id},fraudulent,${reported}`);
  else if (!fraud.has(e.id) && chance(0.015))
    rows.push(`${e.id},${pick(['product_not_received', 'duplicate', 'subscription_canceled'])},${reported}`);
}

mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
writeFileSync(join(OUT, 'chargebacks.csv'), `${rows.join('\n')}\n`);
process.stdout.write(
  `${events.length} events (${events.filter((e) => fraud.has(e.id)).length} fraud), ` +
    `${rows.length - 1} outcomes in ${OUT}\n`,
);
