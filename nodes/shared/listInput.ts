import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import {
	optionsProperty,
	pageSizeOption,
	readRetryPolicy,
	simplifyFor,
} from './descriptions/common';
import { toServiceDateTime } from './dates';
import { printFilter } from './filter';
import { readFilter, type FilterInputOptions } from './filterInput';
import { InvalidItemError } from './runItems';
import type { ResourceSchema } from './schema/fields';
import { isDateTime } from './schema/values';
import { collect, getBaseUrl, MAX_PAGE_SIZE, paginate, type RetryPolicy } from './transport';

/** The Options of a Get Many operation over assets or contracts. */
export function listOptions(nouns: string, searchedFields: string): INodeProperties {
	return optionsProperty(
		{
			displayName: 'Modified Since',
			name: 'since',
			type: 'dateTime',
			default: '',
			description: `Only ${nouns} last modified at or after this time`,
		},
		{
			displayName: 'Modified Until',
			name: 'until',
			type: 'dateTime',
			default: '',
			description: `Only ${nouns} last modified at or before this time`,
		},
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			options: [
				{
					name: 'One Item per Record',
					value: 'records',
					description: `Each of the ${nouns} as an item`,
				},
				{
					name: 'One Item per Page',
					value: 'pages',
					description: `Each page as an item: its ${nouns} (records), how many (count) and the link to the next page (next, empty after the last)`,
				},
			],
			default: 'records',
			description:
				'One Item per Page with Start From reads a list of any size one page per run, with memory bounded (see README: a million records)',
		},
		pageSizeOption(),
		{
			displayName: 'Search Text',
			name: 'q',
			type: 'string',
			default: '',
			description: `Free text to look for in ${searchedFields}`,
		},
		{
			displayName: 'Start From',
			name: 'startFrom',
			type: 'string',
			default: '',
			placeholder: '={{ $json.next }}',
			description:
				'The next link of a page read earlier (One Item per Page gives it): the list continues there, with the filter and options it was started with',
		},
	);
}

export interface ListRequest {
	qs: IDataObject;
	limit?: number;
	pageSize: number;
	retry: RetryPolicy;
	/** One item per page (`records`, `count`, `next`) instead of one per record. */
	pages: boolean;
	/** A `next` link to continue from (it carries the filter and every option). */
	startFrom?: string;
}

/** `since`/`until` in UTC, or an item error naming the option. */
function readModifiedWindow(options: IDataObject, timezone: string): IDataObject {
	const qs: IDataObject = {};
	for (const [name, label] of [
		['since', 'Modified Since'],
		['until', 'Modified Until'],
	] as const) {
		if (options[name] === undefined || options[name] === '') continue;
		const value = toServiceDateTime(options[name], timezone);
		if (typeof value !== 'string' || !isDateTime(value)) {
			throw new InvalidItemError('option', [
				{ path: label, message: `expected a date-time, got ${JSON.stringify(options[name])}` },
			]);
		}
		qs[name] = value;
	}
	return qs;
}

/** Reads a Get Many item's parameters into the list request (filter checked before sending). */
export async function readListRequest(
	this: IExecuteFunctions,
	i: number,
	schema: ResourceSchema,
	filterOptions: Partial<FilterInputOptions> = {},
): Promise<ListRequest> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const filter = await readFilter(schema, {
		getParameter: (name, fallback) => this.getNodeParameter(name, i, fallback),
		timezone: this.getTimezone(),
		...filterOptions,
	});
	const qs: IDataObject = readModifiedWindow(options, this.getTimezone());
	if (filter) qs.filter = printFilter(filter);
	if (typeof options.q === 'string' && options.q.trim()) qs.q = options.q.trim();
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	const pageSize = Math.min(Number(options.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE);
	const startFrom = typeof options.startFrom === 'string' ? options.startFrom.trim() : '';
	return {
		qs,
		limit: returnAll ? undefined : (this.getNodeParameter('limit', i, 50) as number),
		pageSize,
		retry: readRetryPolicy(options),
		pages: options.output === 'pages',
		...(startFrom ? { startFrom } : {}),
	};
}

/**
 * A `next` link given as Start From: a link into this list (under the credential's base URL,
 * which may have a path), or an item error saying what it is.
 */
function checkStartFrom(link: string, baseUrl: string, path: string, nouns: string): URL {
	const expected = new URL(baseUrl + path).pathname;
	let url: URL | undefined;
	try {
		url = new URL(link, baseUrl);
	} catch {
		url = undefined;
	}
	if (url?.pathname.replace(/\/+$/, '') !== expected) {
		throw new InvalidItemError('option', [
			{
				path: 'Start From',
				message: `expected the next link of an earlier page of ${nouns} (${expected}?...), got ${JSON.stringify(link)}`,
			},
		]);
	}
	return url;
}

/** The records a page holds: the `limit` a link carries, else the page size asked for. */
function pageSizeOf(link: URL | undefined, fallback: number): number {
	const size = Number(link?.searchParams.get('limit'));
	return Number.isInteger(size) && size > 0 ? Math.min(size, MAX_PAGE_SIZE) : fallback;
}

/**
 * Reads a Get Many request: every record as an item, or one item per page with the link to the
 * next page, starting at the beginning or at a `next` link given as Start From.
 */
export async function readList(
	this: IExecuteFunctions,
	request: ListRequest,
	list: { path: string; nouns: string; itemIndex: number; schema: ResourceSchema },
): Promise<IDataObject[]> {
	const simplified = simplifyFor(this, list.itemIndex, list.schema);
	const startFrom = request.startFrom
		? checkStartFrom(request.startFrom, await getBaseUrl.call(this), list.path, list.nouns)
		: undefined;
	const listOptions = {
		operation: `list ${list.nouns}`,
		pageSize: request.pageSize,
		itemIndex: list.itemIndex,
		retry: request.retry,
	};
	const from = request.startFrom ?? list.path;
	const qs = startFrom ? undefined : request.qs;
	if (!request.pages) {
		return simplified(
			await collect(paginate.call(this, from, qs, { ...listOptions, limit: request.limit })),
		);
	}
	// whole pages of the size the list is read in, so that each page's next link continues
	// exactly after it
	const perPage = pageSizeOf(startFrom, request.pageSize);
	const maxPages = request.limit === undefined ? undefined : Math.ceil(request.limit / perPage);
	const items: IDataObject[] = [];
	for await (const { records, next } of paginate.call(this, from, qs, {
		...listOptions,
		maxPages,
	})) {
		items.push({ records: simplified(records), count: records.length, next: next ?? '' });
	}
	return items;
}
