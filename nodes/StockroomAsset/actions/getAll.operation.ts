import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { returnAllOrLimit, simplifyProperties } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { showFor } from '../../shared/descriptions/showFor';
import { listOptions, readList, readListRequest, type ListRequest } from '../../shared/listInput';
import { ASSETS_PATH } from '../../shared/resources';
import type { ExecutionCache } from '../../shared/runItems';
import { assetSchema } from '../../shared/schema/asset';
import { customFieldTypes } from '../customFields';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperties(assetSchema),
	...filterProperties(assetSchema, {
		loadFieldsMethod: 'getAssetFilterFields',
		resourceLabel: 'assets',
	}),
	listOptions('assets', 'the name, serial number, asset tag, vendor, type, notes and assignee'),
];

export const description = showFor(['getAll'], properties);

export async function prepare(
	this: IExecuteFunctions,
	i: number,
	cache: ExecutionCache,
): Promise<ListRequest> {
	return await readListRequest.call(this, i, assetSchema, {
		customFieldTypes: customFieldTypes(this, cache, i),
	});
}

export async function execute(
	this: IExecuteFunctions,
	request: ListRequest,
	i: number,
): Promise<IDataObject[]> {
	return await readList.call(this, request, {
		path: ASSETS_PATH,
		nouns: 'assets',
		itemIndex: i,
		schema: assetSchema,
	});
}
