import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { optionsProperty, pageSizeOption, readRetryPolicy } from './descriptions/common';
import { toServiceDateTime } from './dates';
import { printFilter } from './filter';
import { readFilter, type FilterInputOptions } from './filterInput';
import { InvalidItemError } from './runItems';
import type { ResourceSchema } from './schema/fields';
import { isDateTime } from './schema/values';
import type { RetryPolicy } from './transport';

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
		pageSizeOption,
		{
			displayName: 'Search Text',
			name: 'q',
			type: 'string',
			default: '',
			description: `Free text to look for in ${searchedFields}`,
		},
	);
}

export interface ListRequest {
	qs: IDataObject;
	limit?: number;
	pageSize: number;
	retry: RetryPolicy;
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
	return {
		qs,
		limit: returnAll ? undefined : (this.getNodeParameter('limit', i, 50) as number),
		pageSize: Number(options.pageSize ?? 1000),
		retry: readRetryPolicy(options),
	};
}
