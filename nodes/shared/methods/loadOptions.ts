import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { CUSTOM_FIELD_PREFIX, filterableAttributes } from '../descriptions/filterAttributes';
import { fetchCustomFieldDefinitions } from '../resources';
import { EDITOR_RETRY } from '../transport';
import { assetSchema } from '../schema/asset';

/** Asset custom fields for the Custom Fields picker (value: the field's lookup key). */
export async function getAssetCustomFields(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const definitions = await fetchCustomFieldDefinitions.call(this, undefined, EDITOR_RETRY);
	return definitions
		.map((definition) => ({
			name: definition.name,
			value: definition.lookupKey,
			description: `${definition.type}${definition.options?.length ? `: ${definition.options.map((option) => option.label).join(', ')}` : ''}`,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Fields the asset filter builder offers: every filterable schema field, plus the service's
 * custom fields when they can be read (the schema fields are offered even when they cannot).
 */
export async function getAssetFilterFields(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const fields: INodePropertyOptions[] = filterableAttributes(assetSchema.fields).map(
		({ label, path }) => ({ name: label, value: path }),
	);
	try {
		for (const definition of await fetchCustomFieldDefinitions.call(
			this,
			undefined,
			EDITOR_RETRY,
		)) {
			fields.push({
				name: `Custom Field › ${definition.name}`,
				value: `${CUSTOM_FIELD_PREFIX}${definition.lookupKey}`,
				description: `Custom field (${definition.type})`,
			});
		}
	} catch (error) {
		this.logger.debug(
			`Stockroom: custom fields not offered in the filter builder: ${(error as Error).message}`,
		);
	}
	return fields.sort((a, b) => a.name.localeCompare(b.name));
}
