import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { readRetryPolicy } from '../shared/descriptions/common';
import { CURRENCY_OPTIONS } from '../shared/descriptions/recordFields';
import { toServiceDate } from '../shared/dates';
import { customFieldTypesFrom, fetchCustomFieldDefinitions } from '../shared/resources';
import type { ExecutionCache } from '../shared/runItems';
import {
	CUSTOM_FIELD_KINDS,
	type CustomFieldDefinition,
	type CustomFieldForm,
} from '../shared/schema/asset';
import { isPlainObject } from '../shared/schema/values';

/** A type's name in the form, checked against the one table of custom field types. */
const form = (value: CustomFieldForm): CustomFieldForm => value;

/** Custom field values, each a name from the service's definitions and a typed value. */
export const customFieldsProperty: INodeProperties = {
	displayName: 'Custom Fields',
	name: 'customFieldsUi',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Custom Field',
	default: {},
	options: [
		{
			displayName: 'Custom Field',
			name: 'values',
			values: [
				{
					displayName: 'Field Name or ID',
					name: 'name',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getAssetCustomFields' },
					default: '',
					description:
						'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
				},
				{
					displayName: 'Type',
					name: 'type',
					type: 'options',
					options: Object.values(CUSTOM_FIELD_KINDS)
						.map(({ label, form }) => ({ name: label, value: form }))
						.sort((a, b) => a.name.localeCompare(b.name)),
					default: 'text',
					description: "The custom field's type, as shown next to its name",
				},
				{
					displayName: 'Value',
					name: 'textValue',
					type: 'string',
					default: '',
					displayOptions: { show: { type: [form('text')] } },
				},
				{
					displayName: 'Value',
					name: 'numberValue',
					type: 'number',
					default: 0,
					displayOptions: { show: { type: [form('number')] } },
				},
				{
					displayName: 'Value',
					name: 'dateValue',
					type: 'dateTime',
					default: '',
					displayOptions: { show: { type: [form('date')] } },
				},
				{
					displayName: 'Value',
					name: 'optionValue',
					type: 'string',
					default: '',
					placeholder: 'Gold, Onsite',
					description: 'Labels of the selected options, separated by commas',
					displayOptions: { show: { type: [form('options')] } },
				},
				{
					displayName: 'Value',
					name: 'amount',
					type: 'number',
					default: 0,
					typeOptions: { numberPrecision: 2 },
					description: 'The amount',
					displayOptions: { show: { type: [form('money')] } },
				},
				{
					displayName: 'Value',
					name: 'href',
					type: 'string',
					default: '',
					placeholder: 'https://',
					description: 'The link URL',
					displayOptions: { show: { type: [form('link')] } },
				},
				{
					displayName: 'Value Currency',
					name: 'currency',
					type: 'options',
					options: CURRENCY_OPTIONS,
					default: 'USD',
					displayOptions: { show: { type: [form('money')] } },
				},
				{
					displayName: 'Value Description',
					name: 'linkDescription',
					type: 'string',
					default: '',
					description: 'Text shown for the link',
					displayOptions: { show: { type: [form('link')] } },
				},
			],
		},
	],
};

/** The wire value (`customFieldValues` wrapper object) of one UI row. */
function wrap(row: IDataObject, timezone: string): IDataObject {
	switch (row.type) {
		case 'number':
			return { numberValue: row.numberValue as number };
		case 'date':
			return { textValue: toServiceDate(row.dateValue, timezone) as string };
		case 'options':
			return {
				optionValue: String(row.optionValue ?? '')
					.split(',')
					.map((label) => label.trim())
					.filter(Boolean),
			};
		case 'money':
			return { currencyValue: { value: row.amount as number, currency: row.currency as string } };
		case 'link':
			return {
				linkValue: {
					href: row.href as string,
					...(row.linkDescription ? { description: row.linkDescription as string } : {}),
				},
			};
		default:
			return { textValue: String(row.textValue ?? '') };
	}
}

/** `customFieldValues` from the UI rows, or undefined when there are none. */
export function readCustomFields(raw: unknown, timezone: string): IDataObject | undefined {
	const rows = isPlainObject(raw) && Array.isArray(raw.values) ? (raw.values as IDataObject[]) : [];
	if (!rows.length) return undefined;
	const values: IDataObject = {};
	for (const row of rows) values[String(row.name ?? '')] = wrap(row, timezone);
	return values;
}

/** The service's custom field definitions, read at most once per execution (item's retry options). */
export async function customFieldDefinitions(
	context: IExecuteFunctions,
	cache: ExecutionCache,
	itemIndex: number,
): Promise<CustomFieldDefinition[]> {
	if (!cache.has('customFields')) {
		const retry = readRetryPolicy(
			context.getNodeParameter('options', itemIndex, {}) as IDataObject,
		);
		cache.set('customFields', fetchCustomFieldDefinitions.call(context, itemIndex, retry));
	}
	return (await cache.get('customFields')) as CustomFieldDefinition[];
}

/** Custom field types for filter values, from this execution's cached definitions. */
export function customFieldTypes(
	context: IExecuteFunctions,
	cache: ExecutionCache,
	itemIndex: number,
) {
	return customFieldTypesFrom(async () => await customFieldDefinitions(context, cache, itemIndex));
}
