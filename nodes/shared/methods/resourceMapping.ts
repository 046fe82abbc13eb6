import type {
	FieldType,
	ILoadOptionsFunctions,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { CURRENCY_OPTIONS, writableScalars } from '../descriptions/recordFields';
import { fetchCustomFieldDefinitions } from '../resources';
import { assetSchema, type CustomFieldType } from '../schema/asset';
import { contractSchema, lineItemFields } from '../schema/contract';
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

/** Every writable asset field typed from the schema, then the service's custom fields. */
async function assetColumns(
	context: ILoadOptionsFunctions,
	column: (name: string, field: Field) => Partial<ResourceMapperField>,
): Promise<ResourceMapperField[]> {
	const fields = writableScalars(assetSchema.fields).map(([name, field]) => ({
		id: name,
		displayName: field.displayName,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		...columnType(field),
		...column(name, field),
	}));
	const definitions = await fetchCustomFieldDefinitions.call(context, undefined, EDITOR_RETRY);
	const custom = definitions.map((definition) => ({
		id: `${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}`,
		displayName: `${definition.name} (Custom Field)`,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: CUSTOM_COLUMN_TYPES[definition.type],
	}));
	return [...fields, ...custom];
}

/**
 * The columns Create or Update's Map Columns offers: every writable asset field, typed from the
 * schema, and the service's own custom fields, typed from their definitions. External ID matches.
 */
export async function getAssetMappingColumns(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	return {
		fields: await assetColumns(this, (name, field) => ({
			required: field.required === true,
			defaultMatch: name === 'externalId',
			canBeUsedToMatch: name === 'externalId',
		})),
	};
}

/**
 * The columns Sync's Map Columns offers: the same fields, none required (a new asset's are
 * checked when it is planned) and none to match on (Match On says which field pairs).
 */
export async function getAssetSyncColumns(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	return { fields: await assetColumns(this, () => ({})) };
}

/**
 * The columns Contract Sync's Map Columns offers: the writable contract fields and Documents, and
 * either each line item field of a line-item row (`lineItem.<field>`) or a contract's Line Items
 * (a list), as Input Shape says. Every column is text: the node reads an export's numbers and
 * dates itself, in the formats its options give (n8n's own conversion reads an empty cell as 0).
 */
export async function getContractSyncColumns(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const column = (id: string, displayName: string, type: FieldType = 'string') => ({
		id,
		displayName,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type,
	});
	const contract = writableScalars(contractSchema.fields).map(([name, field]) =>
		column(name, field.displayName),
	);
	const lines =
		this.getNodeParameter('inputShape', 'lineItemRows') === 'contracts'
			? [column('lineItems', 'Line Items', 'array')]
			: writableScalars(lineItemFields).map(([name, field]) =>
					column(`lineItem.${name}`, `Line Item ${field.displayName}`),
				);
	return { fields: [...contract, column('documents', 'Documents'), ...lines] };
}
