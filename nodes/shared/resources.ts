import type { IDataObject } from 'n8n-workflow';
import type { CustomFieldDefinition, CustomFieldType } from './schema/asset';
import { apiRequest, type RequestContext, type RetryPolicy } from './transport';

export const ASSETS_PATH = '/api/assets/v1';
export const CONTRACTS_PATH = '/api/contracts/v1';
export const USERS_PATH = '/api/scim/v2/Users';
export const CUSTOM_FIELDS_PATH = `${ASSETS_PATH}/customfields`;

/** The service's asset custom field definitions. */
export async function fetchCustomFieldDefinitions(
	this: RequestContext,
	itemIndex?: number,
	retry?: RetryPolicy,
): Promise<CustomFieldDefinition[]> {
	const response = (await apiRequest.call(this, 'GET', CUSTOM_FIELDS_PATH, {
		operation: 'read the asset custom field definitions',
		answer: 'list',
		itemIndex,
		retry,
	})) as { results?: CustomFieldDefinition[] };
	return response.results ?? [];
}

/**
 * Custom field types by lower-case lookup key and name, for typing filter values. The definitions
 * are loaded on first use only: most filters never name a custom field.
 */
export function customFieldTypesFrom(load: () => Promise<CustomFieldDefinition[]>) {
	return async () => {
		const types = new Map<string, CustomFieldType>();
		for (const definition of await load()) {
			types.set(definition.lookupKey.toLowerCase(), definition.type);
			types.set(definition.name.toLowerCase(), definition.type);
		}
		return types;
	};
}

/** A short label for a record in lists and messages. */
export function recordLabel(record: IDataObject): string {
	const name = record.deviceName ?? record.vendorName ?? record.displayName ?? record.userName;
	const reference = record.externalId ?? record.ref ?? record.userName;
	return (
		[name, reference && reference !== name ? `(${String(reference)})` : undefined]
			.filter(Boolean)
			.join(' ') || String(record.id)
	);
}
