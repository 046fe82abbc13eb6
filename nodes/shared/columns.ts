import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { normalizeRecord } from './records';
import type { CustomFieldDefinition } from './schema/asset';
import type { Fields } from './schema/fields';
import { wrapCustomValue } from './schema/customValues';
import { findDefinition } from './schema/validate';
import { hasValue, isPlainObject } from './schema/values';

/** A custom field's column id: `customFieldValues.<lookup key>`. */
export const CUSTOM_COLUMN_PREFIX = 'customFieldValues.';

/** Create or Update's column mapping (Input Data: Map Columns), as n8n's own upsert nodes map. */
export const columnsProperty: INodeProperties = {
	displayName: 'Columns',
	name: 'columns',
	type: 'resourceMapper',
	noDataExpression: true,
	default: { mappingMode: 'defineBelow', value: null },
	required: true,
	typeOptions: {
		resourceMapper: {
			resourceMapperMethod: 'getAssetMappingColumns',
			mode: 'upsert',
			fieldWords: { singular: 'field', plural: 'fields' },
			addAllFields: false,
			multiKeyMatch: false,
			supportAutoMap: true,
			matchingFieldsLabels: {
				title: 'Match On',
				description: 'Assets are matched by External ID',
			},
		},
	},
	displayOptions: { show: { inputMode: ['map'] } },
};

/**
 * The record the mapped columns give for an item: the values mapped below, or the item's own
 * fields with the columns' names (Map Automatically). Empty values are not sent, so nothing is
 * cleared by a column left empty; custom field columns are wrapped by their definitions' types.
 */
export function readColumns(
	raw: unknown,
	item: IDataObject,
	fields: Fields,
	definitions: readonly CustomFieldDefinition[],
	timezone: string,
): IDataObject {
	const columns = isPlainObject(raw) ? raw : {};
	const values =
		columns.mappingMode === 'autoMapInputData'
			? item
			: isPlainObject(columns.value)
				? columns.value
				: {};
	const record: IDataObject = {};
	const custom: IDataObject = {};
	for (const [id, value] of Object.entries(values)) {
		if (!hasValue(value)) continue;
		if (id.startsWith(CUSTOM_COLUMN_PREFIX)) {
			const key = id.slice(CUSTOM_COLUMN_PREFIX.length);
			custom[key] = wrapCustomValue(
				value,
				findDefinition(key, definitions),
				timezone,
			) as IDataObject;
		} else if (fields[id] && !fields[id].readOnly) {
			record[id] = value as IDataObject[string];
		}
	}
	if (Object.keys(custom).length) {
		const given = isPlainObject(record.customFieldValues) ? record.customFieldValues : {};
		record.customFieldValues = { ...given, ...custom } as IDataObject;
	}
	return normalizeRecord(fields, record, timezone);
}
