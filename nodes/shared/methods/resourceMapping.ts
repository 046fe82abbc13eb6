import type { FieldType, ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';
import { CURRENCY_OPTIONS, writableScalars } from '../descriptions/recordFields';
import { fetchCustomFieldDefinitions } from '../resources';
import { assetSchema, type CustomFieldType } from '../schema/asset';
import { enumLabel, type Field } from '../schema/fields';
import { EDITOR_RETRY } from '../transport';
import { CUSTOM_COLUMN_PREFIX } from '../columns';

/** The mapping form's input for each kind of schema field. */
function columnType(field: Field): {
	type: FieldType;
	options?: Array<{ name: string; value: string }>;
} {
	switch (field.type) {
		case 'number':
			return { type: 'number' };
		case 'boolean':
			return { type: 'boolean' };
		case 'date':
		case 'dateTime':
			return { type: 'dateTime' };
		case 'enum':
			return {
				type: 'options',
				options: field.values.map((value) => ({ name: enumLabel(value), value })),
			};
		case 'currency':
			return {
				type: 'options',
				options: CURRENCY_OPTIONS as Array<{ name: string; value: string }>,
			};
		default:
			return { type: 'string' };
	}
}

/** Custom field types as the mapping form takes them (Currency: amount and code, "1299.50 EUR"). */
const CUSTOM_COLUMN_TYPES: Record<CustomFieldType, FieldType> = {
	Text: 'string',
	Link: 'string',
	Currency: 'string',
	Date: 'dateTime',
	Number: 'number',
	Option: 'string',
};

/**
 * The columns Create or Update's Map Columns offers: every writable asset field, typed from the
 * schema, and the service's own custom fields, typed from their definitions. External ID matches.
 */
export async function getAssetMappingColumns(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const fields = writableScalars(assetSchema.fields).map(([name, field]) => ({
		id: name,
		displayName: field.displayName,
		required: field.required === true,
		defaultMatch: name === 'externalId',
		canBeUsedToMatch: name === 'externalId',
		display: true,
		...columnType(field),
	}));
	const definitions = await fetchCustomFieldDefinitions.call(this, undefined, EDITOR_RETRY);
	const custom = definitions.map((definition) => ({
		id: `${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}`,
		displayName: `${definition.name} (Custom Field)`,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: CUSTOM_COLUMN_TYPES[definition.type],
	}));
	return { fields: [...fields, ...custom] };
}
