import type { IDataObject } from 'n8n-workflow';
import { any, compare, printFilter } from './filter';
import {
	collect,
	MAX_PAGE_SIZE,
	paginate,
	type RequestContext,
	type RetryPolicy,
} from './transport';

/**
 * The longest filter one list request carries, URL-encoded: well within what servers and
 * gateways take in a request line (8 kB is common).
 */
export const MAX_LOOKUP_FILTER_LENGTH = 6000;

/** Groups External IDs so that each group's `or` chain stays within the URL length. */
export function lookupBatches(externalIds: readonly string[]): string[][] {
	const joiner = encodeURIComponent(' or ').length;
	const batches: string[][] = [];
	let batch: string[] = [];
	let length = 0;
	for (const externalId of new Set(externalIds)) {
		const clause = encodeURIComponent(printFilter(compare('externalId', 'eq', externalId))).length;
		const full =
			length + joiner + clause > MAX_LOOKUP_FILTER_LENGTH || batch.length === MAX_PAGE_SIZE;
		if (batch.length && full) {
			batches.push(batch);
			batch = [];
			length = 0;
		}
		length += (batch.length ? joiner : 0) + clause;
		batch.push(externalId);
	}
	if (batch.length) batches.push(batch);
	return batches;
}

/**
 * The records with these External IDs, by External ID: one filtered list request per batch
 * (`externalId eq "a" or externalId eq "b" ...`), never one request per record. The service
 * compares text case-insensitively, but a write matches the External ID exactly: only exact
 * matches count.
 */
export async function findByExternalIds(
	context: RequestContext,
	path: string,
	nouns: string,
	externalIds: readonly string[],
	options: { retry?: RetryPolicy; itemIndex?: number },
): Promise<Map<string, IDataObject>> {
	const found = new Map<string, IDataObject>();
	for (const batch of lookupBatches(externalIds)) {
		const filter = printFilter(any(...batch.map((id) => compare('externalId', 'eq', id)))!);
		const records = await collect(
			paginate.call(
				context,
				path,
				{ filter },
				{
					operation: `look up ${nouns} by External ID`,
					pageSize: MAX_PAGE_SIZE,
					itemIndex: options.itemIndex,
					retry: options.retry,
				},
			),
		);
		const wanted = new Set(batch);
		for (const record of records) {
			const externalId = record.externalId;
			if (typeof externalId === 'string' && wanted.has(externalId)) found.set(externalId, record);
		}
	}
	return found;
}
