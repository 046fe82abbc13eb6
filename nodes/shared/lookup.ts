import type { IDataObject } from 'n8n-workflow';
import { any, compare, printFilter } from './filter';
import {
	collect,
	MAX_PAGE_SIZE,
	paginate,
	type RequestContext,
	type RetryPolicy,
} from './transport';
import { runPooled, WRITES_AT_ONCE } from './pool';

/**
 * Lookup requests under way at once: a lookup whose matches fill a page asks for the next one
 * ahead, so half the writes' limit keeps the requests in flight within it.
 */
const LOOKUPS_AT_ONCE = WRITES_AT_ONCE / 2;

/**
 * The longest filter one list request carries, URL-encoded: well within what servers and
 * gateways take in a request line (8 kB is common).
 */
export const MAX_LOOKUP_FILTER_LENGTH = 6000;

/** Groups values so that each group's `or` chain (`field eq "a" or ...`) stays within the URL length. */
export function lookupBatches(field: string, values: readonly string[]): string[][] {
	const joiner = encodeURIComponent(' or ').length;
	const batches: string[][] = [];
	let batch: string[] = [];
	let length = 0;
	for (const value of new Set(values)) {
		const clause = encodeURIComponent(printFilter(compare(field, 'eq', value))).length;
		const full =
			length + joiner + clause > MAX_LOOKUP_FILTER_LENGTH || batch.length === MAX_PAGE_SIZE;
		if (batch.length && full) {
			batches.push(batch);
			batch = [];
			length = 0;
		}
		length += (batch.length ? joiner : 0) + clause;
		batch.push(value);
	}
	if (batch.length) batches.push(batch);
	return batches;
}

/**
 * The records whose `field` has one of these values, by value: one filtered list request per
 * batch (`field eq "a" or field eq "b" ...`), never one request per record. The service compares
 * text case-insensitively, but a write matches an External ID exactly: by default only exact
 * matches count; `form` makes values equal when their forms are (Sync's keys: case aside), and
 * the map is then keyed by form. A value two records share gives both.
 */
export async function findByField(
	context: RequestContext,
	path: string,
	nouns: string,
	field: string,
	values: readonly string[],
	options: {
		retry?: RetryPolicy;
		itemIndex?: number;
		label?: string;
		form?: (value: string) => string;
	},
): Promise<Map<string, IDataObject[]>> {
	const form = options.form ?? ((value: string) => value);
	const batches = lookupBatches(field, values);
	const answers = new Array<IDataObject[]>(batches.length);
	// a lookup that fails rejects the pool, and no other starts
	await runPooled(batches.length, LOOKUPS_AT_ONCE, async (index) => {
		const filter = printFilter(any(...batches[index].map((value) => compare(field, 'eq', value)))!);
		answers[index] = await collect(
			paginate.call(
				context,
				path,
				{ filter },
				{
					operation: `look up ${nouns} by ${options.label ?? field}`,
					pageSize: MAX_PAGE_SIZE,
					itemIndex: options.itemIndex,
					retry: options.retry,
				},
			),
		);
	});
	const found = new Map<string, IDataObject[]>();
	for (const [index, batch] of batches.entries()) {
		const records = answers[index];
		const wanted = new Set(batch.map(form));
		for (const record of records) {
			const value = record[field];
			if (typeof value !== 'string' || !wanted.has(form(value))) continue;
			const matches = found.get(form(value));
			if (matches) matches.push(record);
			else found.set(form(value), [record]);
		}
	}
	return found;
}
