import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { CURRENCY_CODES } from '../schema/currencies';
import {
	enumLabel,
	type Field,
	type Fields,
	type ListField,
	type ResourceSchema,
} from '../schema/fields';

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

export const CURRENCY_OPTIONS: INodePropertyOptions[] = CURRENCY_CODES.map((code) => ({
	name: code,
	value: code,
}));

/** Scalar fields a user can write (everything but read-only, lists and custom-field maps). */
export function writableScalars(fields: Fields): Array<[string, Field]> {
	return Object.entries(fields).filter(
		([, field]) =>
			!field.readOnly && !['list', 'object', 'customFields', 'stringList'].includes(field.type),
	);
}

/** The n8n parameter for one scalar field; `name` is the API field name. */
export function fieldProperty(name: string, field: Field): INodeProperties {
	const base = {
		displayName: field.displayName,
		name,
		description: field.description,
		placeholder: field.placeholder,
	};
	switch (field.type) {
		case 'number':
			return {
				...base,
				type: 'number',
				default: 0,
				typeOptions: {
					...(field.min !== undefined ? { minValue: field.min } : {}),
					...(field.integer ? { numberPrecision: 0 } : {}),
				},
			};
		case 'boolean':
			return {
				...base,
				type: 'boolean',
				default: false,
				description: field.description ?? `Whether ${field.displayName.toLowerCase()}`,
			};
		case 'date':
			return {
				...base,
				type: 'dateTime',
				default: '',
				description: field.description ?? 'A calendar date; the time part is ignored',
			};
		case 'dateTime':
			return { ...base, type: 'dateTime', default: '' };
		case 'enum':
			return {
				...base,
				type: 'options',
				default: field.values[0],
				options: field.values.map((value) => ({ name: enumLabel(value), value })).sort(byName),
			};
		case 'currency':
			return { ...base, type: 'options', default: 'USD', options: CURRENCY_OPTIONS };
		case 'email':
			return {
				...base,
				type: 'string',
				default: '',
				placeholder: field.placeholder ?? 'name@email.com',
			};
		case 'string':
			if (field.suggestions) {
				// the service takes any text here: the values seen are offered, not imposed
				return {
					...base,
					type: 'string',
					default: '',
					placeholder: `e.g. ${field.suggestions[0]}`,
					hint: `Any text. Known values: ${[...field.suggestions].sort().join(', ')}`,
				};
			}
			return {
				...base,
				type: 'string',
				default: '',
				...(field.multiline ? { typeOptions: { rows: 3 } } : {}),
			};
		default:
			return { ...base, type: 'string', default: '' };
	}
}

/** Required (and prominent) writable fields of a resource, as top-level parameters. */
export function requiredFieldProperties(schema: ResourceSchema): INodeProperties[] {
	return writableScalars(schema.fields)
		.filter(([, field]) => field.required || field.prominent)
		.map(([name, field]) => ({
			...fieldProperty(name, field),
			...(field.required ? { required: true } : {}),
		}));
}

/** Optional writable fields, sorted by label, for an "Additional Fields" or "Update Fields" collection. */
export function optionalFieldProperties(
	schema: ResourceSchema | { fields: Fields },
	includeRequired = false,
): INodeProperties[] {
	return writableScalars(schema.fields)
		.filter(([, field]) => includeRequired || !(field.required || field.prominent))
		.map(([name, field]) => fieldProperty(name, field))
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** Plain text fields can sit in a form directly: left empty, they are not sent. */
const isPlainText = (field: Field) =>
	field.type === 'string' && !field.suggestions && !field.multiline;

/** The collection name holding a list element's other optional fields. */
export const ELEMENT_EXTRA_FIELDS = 'additionalFields';

/**
 * A repeatable group with one set of fields per element, e.g. line items: required fields and
 * optional plain-text fields directly, other optional fields under "Additional Fields" (so
 * nothing is sent that the user did not set).
 */
export function listProperty(
	name: string,
	field: ListField,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	const fields = writableScalars(field.fields);
	const direct = fields.filter(([, element]) => element.required || isPlainText(element));
	const others = fields.filter(([, element]) => !element.required && !isPlainText(element));
	return {
		displayName: field.displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: `Add ${field.itemName}`,
		default: {},
		options: [
			{
				displayName: field.itemName,
				name: 'values',
				values: [
					...direct.map(([key, element]) => ({
						...fieldProperty(key, element),
						required: element.required,
					})),
					{
						displayName: 'Additional Fields',
						name: ELEMENT_EXTRA_FIELDS,
						type: 'collection',
						placeholder: 'Add Field',
						default: {},
						options: others
							.map(([key, element]) => fieldProperty(key, element))
							.sort((a, b) => a.displayName.localeCompare(b.displayName)),
					},
				],
			},
		],
		...extra,
	};
}
