import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { idPattern, recordLocator } from '../shared/descriptions/locators';
import { buildFilter, printFilter } from '../shared/filter';
import { ASSETS_PATH } from '../shared/resources';
import { assetSchema } from '../shared/schema/asset';
import { apiRequest, type RetryPolicy } from '../shared/transport';

const ASSET_ID_PATTERN = idPattern(24);

/** Picks one asset: from a searchable list, by ID, or by External ID. */
export const assetLocator = recordLocator({
	noun: 'Asset',
	searchListMethod: 'searchAssets',
	idLength: 24,
	idPlaceholder: '65f1c0ffee0123456789abcd',
	externalIdPlaceholder: 'e.g. the ID in your MDM',
});

/** The asset's service ID, looking it up when given by External ID; null when none matches. */
export async function resolveAssetId(
	this: IExecuteFunctions,
	itemIndex: number,
	retry: RetryPolicy,
): Promise<{ id: string | null; label: string; externalId?: string }> {
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
		answer: 'list',
		itemIndex,
		retry,
	})) as { results?: IDataObject[] };
	const match = (page.results ?? []).find(
		(record) => String(record.externalId).toLowerCase() === value.toLowerCase(),
	);
	return {
		id: match ? String(match.id) : null,
		label: `asset with External ID "${value}"`,
		externalId: value,
	};
}
