import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { buildFilter, printFilter } from '../shared/filter';
import { ASSETS_PATH } from '../shared/resources';
import { assetSchema } from '../shared/schema/asset';
import { apiRequest, type RetryPolicy } from '../shared/transport';

export const ASSET_ID_PATTERN = '^[0-9a-fA-F]{24}$';

/** Picks one asset: from a searchable list, by ID, or by External ID. */
export const assetLocator: INodeProperties = {
	displayName: 'Asset',
	name: 'asset',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: {
				searchListMethod: 'searchAssets',
				searchable: true,
				searchFilterRequired: false,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: '65f1c0ffee0123456789abcd',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: ASSET_ID_PATTERN,
						errorMessage: 'An asset ID is 24 hexadecimal characters',
					},
				},
			],
		},
		{
			displayName: 'By External ID',
			name: 'externalId',
			type: 'string',
			placeholder: 'e.g. the ID in your MDM',
		},
	],
};

/** The asset's service ID, looking it up when given by External ID; null when none matches. */
export async function resolveAssetId(
	this: IExecuteFunctions,
	itemIndex: number,
	retry: RetryPolicy,
): Promise<{ id: string | null; label: string }> {
	const locator = this.getNodeParameter('asset', itemIndex) as { mode: string; value: string };
	const value = String(locator.value ?? '').trim();
	if (!value) throw new Error('Asset: choose an asset or enter its ID');
	if (locator.mode !== 'externalId') {
		if (!new RegExp(ASSET_ID_PATTERN).test(value))
			throw new Error(`Asset: "${value}" is not an asset ID (24 hexadecimal characters)`);
		return { id: value.toLowerCase(), label: `asset ${value}` };
	}
	const filter = printFilter(
		buildFilter(
			{ match: 'all', conditions: [{ field: 'externalId', operator: 'eq', value }] },
			assetSchema,
		)!,
	);
	const page = (await apiRequest.call(this, 'GET', ASSETS_PATH, {
		qs: { filter, limit: 2 },
		operation: `find the asset with External ID "${value}"`,
		itemIndex,
		retry,
	})) as { results?: IDataObject[] };
	const match = (page.results ?? []).find(
		(record) => String(record.externalId).toLowerCase() === value.toLowerCase(),
	);
	return { id: match ? String(match.id) : null, label: `asset with External ID "${value}"` };
}
