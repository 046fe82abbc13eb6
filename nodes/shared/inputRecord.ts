import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { normalizeRecord, withoutReadOnly } from './records';
import type { ResourceSchema } from './schema/fields';

/**
 * Fill the record in field by field, or send the input item's JSON as the record; with
 * `mapColumns`, also map columns (a resourceMapper named `columns`).
 */
export function inputModeProperty(noun: string, mapColumns = false): INodeProperties {
	return {
		displayName: 'Input Data',
		name: 'inputMode',
		type: 'options',
		options: [
			{
				name: 'Define Below',
				value: 'fields',
				description: `Set each ${noun} field in this node`,
			},
			...(mapColumns
				? [
						{
							name: 'Map Columns',
							value: 'map',
							description: `Map the input's fields to ${noun} fields, each typed (custom fields from the service's definitions), automatically by name or one by one`,
						},
					]
				: []),
			{
				name: 'Use Input Item JSON',
				value: 'json',
				description: `Send each input item's JSON as the ${noun}. Fields the service sets (created and modified times, ...) are ignored; a service ID in "ID" selects the ${noun} to replace.`,
			},
		],
		default: 'fields',
	};
}

/** The record to write for an item, from the UI fields or from the item's JSON. */
export function readInputRecord(
	this: IExecuteFunctions,
	i: number,
	schema: ResourceSchema,
	fromFields: () => IDataObject,
): { record: IDataObject; unknownFields: 'error' | 'ignore' } {
	if (this.getNodeParameter('inputMode', i, 'fields') !== 'json') {
		return { record: fromFields(), unknownFields: 'error' };
	}
	const ignoreUnknown =
		(this.getNodeParameter('options.ignoreUnknownFields', i, false) as boolean) === true;
	let record = withoutReadOnly(
		schema.fields,
		normalizeRecord(schema.fields, this.getInputData()[i].json, this.getTimezone()),
	);
	if (ignoreUnknown) {
		record = Object.fromEntries(Object.entries(record).filter(([key]) => key in schema.fields));
	}
	return { record, unknownFields: ignoreUnknown ? 'ignore' : 'error' };
}

/**
 * The record filled in field by field: the form's own fields (required ones, and optional ones
 * shown beside them, which are not sent when left empty), then those of a collection (Additional
 * Fields, or Merge's Fields to Set).
 */
export function readFormFields(
	this: IExecuteFunctions,
	i: number,
	schema: ResourceSchema,
	formFields: INodeProperties[],
	collection = 'additionalFields',
): IDataObject {
	const fields: IDataObject = {};
	for (const property of formFields) {
		const value = this.getNodeParameter(property.name, i) as IDataObject[string];
		if (value === '' && !property.required) continue;
		fields[property.name] = value;
	}
	Object.assign(fields, this.getNodeParameter(collection, i, {}) as IDataObject);
	return normalizeRecord(schema.fields, fields, this.getTimezone());
}
