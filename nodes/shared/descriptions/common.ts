import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { ResourceSchema } from '../schema/fields';
import { DEFAULT_RETRY, MAX_PAGE_SIZE, type RetryPolicy } from '../transport';

/** Options of a collection in n8n's order: alphabetical by label. */
export const alphabetical = (properties: INodeProperties[]): INodeProperties[] =>
	[...properties].sort((a, b) => a.displayName.localeCompare(b.displayName));

/** Return All / Limit, as in n8n's own nodes. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

const DEFAULT_ATTEMPTS = DEFAULT_RETRY.maxAttempts;
const DEFAULT_WAIT_SECONDS = DEFAULT_RETRY.maxWaitMs / 1000;
const DEFAULT_TIMEOUT_SECONDS = DEFAULT_RETRY.timeoutMs / 1000;
const DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE;

/** Retry settings offered in every operation's Options. */
export const retryOptions: INodeProperties[] = [
	{
		displayName: 'Max Attempts',
		name: 'maxAttempts',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 20 },
		default: DEFAULT_ATTEMPTS,
		description:
			'How many times to try a call the service answers with 429, 502, 503 or 504, or that loses its connection',
	},
	{
		displayName: 'Max Retry Wait (Seconds)',
		name: 'maxRetryWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_WAIT_SECONDS,
		description: 'Total time to wait between attempts (honouring Retry-After) before giving up',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_TIMEOUT_SECONDS,
		description:
			'How long one request may wait for the service to answer; one that does not is tried again like a lost connection',
	},
];

/** The one Page Size option: Get Many's, the trigger's and (with SCIM's smaller default) users'. */
export const pageSizeOption = (
	records = 'Records',
	defaultSize = DEFAULT_PAGE_SIZE,
): INodeProperties => ({
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE },
	default: defaultSize,
	description: `${records} per request; larger pages mean fewer requests`,
});

export function readRetryPolicy(options: IDataObject): RetryPolicy {
	const attempts = Number(options.maxAttempts ?? DEFAULT_RETRY.maxAttempts);
	const waitSeconds = Number(options.maxRetryWaitSeconds ?? DEFAULT_RETRY.maxWaitMs / 1000);
	const timeoutSeconds = Number(options.timeoutSeconds ?? DEFAULT_RETRY.timeoutMs / 1000);
	return {
		timeoutMs:
			Number.isFinite(timeoutSeconds) && timeoutSeconds > 0
				? timeoutSeconds * 1000
				: DEFAULT_RETRY.timeoutMs,
		maxAttempts:
			Number.isFinite(attempts) && attempts >= 1 ? Math.floor(attempts) : DEFAULT_RETRY.maxAttempts,
		maxWaitMs:
			Number.isFinite(waitSeconds) && waitSeconds >= 0
				? waitSeconds * 1000
				: DEFAULT_RETRY.maxWaitMs,
	};
}

/** An operation's Options collection: its own options and the retry settings, alphabetical. */
export const optionsProperty = (...own: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: alphabetical([...own, ...retryOptions]),
});

/**
 * Simplify, as n8n's own nodes offer it: on by default for the AI tool variant (an agent reads
 * every field it is given), off for the node itself (saved workflows keep the whole record). n8n
 * before 1.100 cannot tell the variants apart: there it is off by default for both.
 */
export function simplifyProperties(schema: ResourceSchema): INodeProperties[] {
	const kept = (schema.simpleFields ?? []).map((name) => schema.fields[name]?.displayName ?? name);
	const description = `Whether to return only the main fields of each ${schema.noun} (${kept.join(', ')}) instead of the whole record`;
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description,
			displayOptions: { show: { '@tool': [true] } },
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description,
			// hide, not show on false: n8n before 1.100 knows no `@tool` and would show neither
			displayOptions: { hide: { '@tool': [true] } },
		},
	];
}

/** The records as the item's Simplify asks: whole, or only the fields it keeps. */
export function simplifyFor(
	context: IExecuteFunctions,
	itemIndex: number,
	schema: ResourceSchema,
): (records: IDataObject[]) => IDataObject[] {
	const simplify = context.getNodeParameter('simplify', itemIndex, false) as boolean;
	return (records) =>
		simplify ? records.map((record) => simplifyRecord(schema, record)) : records;
}

/** A record with only the fields Simplify keeps (those it has). */
export function simplifyRecord(schema: ResourceSchema, record: IDataObject): IDataObject {
	const simple: IDataObject = {};
	for (const name of schema.simpleFields ?? []) {
		if (record[name] !== undefined) simple[name] = record[name];
	}
	return simple;
}
