import { contractSchema } from '../../nodes/shared/schema/contract';
import { Answer, invalid } from '../problems';
import type { RecordTable, StoredRecord } from '../store';
import {
	findTarget,
	normalizeFields,
	validateBody,
	withMetadata,
	type WriteContext,
} from './common';

type LineItem = Record<string, unknown>;

/** The organisation's base currency. */
export const BASE_CURRENCY = 'USD';

/**
 * US dollars per unit of each currency: a fixed table, so amounts are repeatable. A line item in
 * a currency outside it gets no `baseAmount`/`baseCurrency`, as when the service has no rate.
 */
const USD_RATES: Readonly<Record<string, number>> = {
	USD: 1,
	EUR: 1.08,
	GBP: 1.27,
	CHF: 1.12,
	CAD: 0.73,
	AUD: 0.66,
	NZD: 0.6,
	JPY: 0.0067,
	CNY: 0.138,
	HKD: 0.128,
	SGD: 0.74,
	INR: 0.012,
	KRW: 0.00073,
	SEK: 0.095,
	NOK: 0.093,
	DKK: 0.145,
	PLN: 0.25,
	CZK: 0.043,
	HUF: 0.0027,
	BRL: 0.18,
	MXN: 0.055,
	ZAR: 0.054,
	ILS: 0.27,
	AED: 0.272,
	SAR: 0.267,
};

/** Adds `baseAmount` (amount × unitCount, in USD, to the cent) and `baseCurrency`. */
export function withBaseAmount(item: LineItem): LineItem {
	const { baseAmount: _amount, baseCurrency: _currency, ...rest } = item;
	if (typeof rest.amount !== 'number') return rest;
	const rate = USD_RATES[typeof rest.currency === 'string' ? rest.currency : BASE_CURRENCY];
	if (rate === undefined) return rest;
	const total = typeof rest.unitCount === 'number' ? rest.amount * rest.unitCount : rest.amount;
	return { ...rest, baseAmount: Math.round(total * rate * 100) / 100, baseCurrency: BASE_CURRENCY };
}

const externalIdOf = (item: LineItem): string | undefined =>
	typeof item.externalId === 'string' && item.externalId !== '' ? item.externalId : undefined;

/**
 * The line items after an update (service-api.md §2.3, service-behaviour.md §5): items sent
 * with an externalId replace the existing one with it or are added; existing items whose
 * externalId is not sent again are removed; existing items without one stay unless items
 * without one are sent.
 * Sending no items at all (`[]`) clears them.
 */
export function mergeLineItems(
	existing: readonly LineItem[],
	sent: readonly LineItem[],
): LineItem[] {
	if (sent.length === 0) return [];
	const replacesAnonymous = sent.some((item) => externalIdOf(item) === undefined);
	const kept = replacesAnonymous ? [] : existing.filter((item) => externalIdOf(item) === undefined);
	return [...kept, ...sent];
}

function duplicateLineItems(items: readonly unknown[]): Record<string, string[]> {
	const errors: Record<string, string[]> = {};
	const seen = new Map<string, number>();
	items.forEach((item, index) => {
		const externalId = externalIdOf(item as LineItem);
		if (externalId === undefined) return;
		const first = seen.get(externalId);
		if (first === undefined) {
			seen.set(externalId, index);
		} else {
			errors[`lineItems[${index}].externalId`] = [`repeats the externalId of lineItems[${first}]`];
		}
	});
	return errors;
}

/** A contract by id, else by externalId. */
export const findContract = (table: RecordTable, key: string): StoredRecord | undefined =>
	table.get(key) ?? table.findByExternalId(key);

/** PUT: create or replace; `lineItems`/`documents` left out stay as they are, `[]` clears them. */
export function putContract(
	table: RecordTable,
	body: unknown,
	context: WriteContext,
): StoredRecord {
	const valid = validateBody(contractSchema, body, 'replace');
	const duplicates = duplicateLineItems(Array.isArray(valid.lineItems) ? valid.lineItems : []);
	if (Object.keys(duplicates).length) throw new Answer(invalid(duplicates));
	const target = findTarget(table, valid);
	const data = normalizeFields(contractSchema.fields, valid);
	const previousItems = (target?.lineItems ?? []) as LineItem[];
	const sentItems = data.lineItems as LineItem[] | undefined;
	const lineItems =
		sentItems === undefined ? previousItems : mergeLineItems(previousItems, sentItems);
	const documents = data.documents ?? target?.documents ?? [];
	const record = withMetadata(target?.id ?? table.newId(), data, target, context);
	return table.put({ ...record, lineItems: lineItems.map(withBaseAmount), documents });
}
