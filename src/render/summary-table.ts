import type { Style } from './colours.js';
import { cell, joinPresent, money, safeText } from './cell-text.js';
import { renderKeyValues } from './key-values.js';
import { hasAnyKey, isFields, unknownKeys, type Fields } from './json-fields.js';
import { column, createTable, joinBlocks, recordTable, sectionRow, tableText, type Column } from './tables.js';

/*
 * The event summary (GET /event/{id}) as a two-column table in sections, then its items.
 * Each row names the summary fields it shows; whatever field no row names goes to "Other
 * fields", so a service that sends more than the contract still has all of it shown.
 */

/** A true list match stands out: an allowlist hit in the approve colour, a denylist hit in decline's. */
function listFlag(label: string, key: string, colour: 'approve' | 'decline'): Column {
  return {
    head: label,
    keys: [key],
    show: (f, style) => (f[key] === true ? style[colour]('true') : cell(f[key], style)),
  };
}

function amountRow(label: string, amountKey: string, currencyKey: string): Column {
  return {
    head: label,
    keys: [amountKey, currencyKey],
    show: (f, style) => money(f[amountKey], f[currencyKey], style),
  };
}

function addressRows(prefix: 'shipping' | 'billing'): Column[] {
  const row = (label: string, suffix: string) => column(label, `${prefix}${suffix}`);
  return [
    ...(prefix === 'shipping' ? [row('full name', 'FullName')] : []),
    row('street 1', 'Street1'),
    row('street 2', 'Street2'),
    row('city', 'City'),
    row('region', 'Region'),
    row('zip', 'Zip'),
    row('country', 'Country'),
    row('phone', 'Phone'),
  ];
}

const SECTIONS: ReadonlyArray<readonly [string, readonly Column[]]> = [
  [
    'Decision',
    [
      column('id', 'id'),
      column('state', 'state'),
      column('total score', 'totalScore'),
      column('event date', 'eventDate'),
      listFlag('allowlist match', 'allowlistMatch', 'approve'),
      listFlag('denylist match', 'denylistMatch', 'decline'),
      column('comments', 'comments'),
    ],
  ],
  [
    'Amount',
    [amountRow('amount', 'amount', 'currency'), amountRow('in base currency', 'amountInBaseCurrency', 'baseCurrency')],
  ],
  [
    'User',
    [
      column('name', 'userName'),
      column('full name', 'userFullName'),
      column('email', 'userEmail'),
      column('IP', 'userIp'),
      column('created', 'userCreated'),
    ],
  ],
  ['Shipping', addressRows('shipping')],
  ['Billing', addressRows('billing')],
];

/** Every summary field a section row shows, and items (shown in their own table). */
const SUMMARY_KEYS: ReadonlySet<string> = new Set([
  ...SECTIONS.flatMap(([, rows]) => rows.flatMap((r) => r.keys)),
  'items',
]);

/** GET /event/{id}: the summary in sections (Decision, Amount, User, Shipping, Billing, Other fields), then items. */
export function renderEventSummary(summary: unknown, style: Style): string {
  if (!isFields(summary) || !hasAnyKey(summary, SUMMARY_KEYS)) return renderKeyValues(summary, style);
  return joinBlocks([summaryTable(summary, style), items(summary, style)]);
}

function summaryTable(summary: Fields, style: Style): string {
  const table = createTable(undefined, style);
  const section = (title: string, rows: ReadonlyArray<[string, string]>) => {
    if (table.length > 0) table.push(sectionRow('', style));
    table.push(sectionRow(title, style), ...rows);
  };
  for (const [title, rows] of SECTIONS)
    section(
      title,
      rows.map((row) => [row.head, row.show(summary, style)]),
    );
  const other = unknownKeys(summary, SUMMARY_KEYS);
  if (other.length > 0)
    section(
      'Other fields',
      other.map((key) => [safeText(key), cell(summary[key], style)]),
    );
  return tableText(table, style);
}

/**
 * The items table. On a narrow terminal the ids, quantities and amounts stay whole (the long heads
 * shorten), the name wraps, and the seller and category go under the item.
 */
function itemColumns(baseCurrency: unknown): Column[] {
  const price = (i: Fields, style: Style) => money(i.itemPrice, i.itemCurrency, style);
  const basePrice = (i: Fields, style: Style) => money(i.itemPriceInBaseCurrency, baseCurrency, style);
  return [
    {
      head: 'item',
      keys: ['itemId', 'itemName'],
      show: (i, style) => joinPresent([i.itemId, i.itemName], ' / ', style),
      whole: (i, style) => (i.itemId != null ? cell(i.itemId, style) : ''),
      breakable: true,
    },
    { ...column('quantity', 'itemQuantity', 'right'), whole: (i, style) => cell(i.itemQuantity, style), short: 'qty' },
    { head: 'price', keys: ['itemPrice', 'itemCurrency'], show: price, whole: price, align: 'right' },
    {
      head: 'base-currency price',
      keys: ['itemPriceInBaseCurrency'],
      show: basePrice,
      whole: basePrice,
      short: 'base price',
      align: 'right',
    },
    { head: 'seller', keys: ['itemSeller', 'itemSellerCountry'], show: seller, foldable: true },
    { ...column('category', 'itemCategory'), foldable: true },
  ];
}

/** `Shoe Co (DE)`, or whichever of the two is there. */
function seller(item: Fields, style: Style): string {
  const { itemSeller: name, itemSellerCountry: country } = item;
  if (name != null && country != null) return `${cell(name, style)} (${cell(country, style)})`;
  return joinPresent([name, country], ' ', style);
}

function items(summary: Fields, style: Style): string {
  const list = summary.items;
  if (list === null || list === undefined || (Array.isArray(list) && list.length === 0)) return style.dim('no items');
  if (!Array.isArray(list)) return `${style.heading('Items')}\n${renderKeyValues(list, style)}`;
  return `${style.heading(`Items (${list.length})`)}\n${recordTable(list, itemColumns(summary.baseCurrency), style)}`;
}
