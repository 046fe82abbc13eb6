import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';
import {
	optionsProperty,
	readRetryPolicy,
	simplifyFor,
	simplifyProperties,
} from '../../shared/descriptions/common';
import { showFor } from '../../shared/descriptions/showFor';
import { assetSchema } from '../../shared/schema/asset';
import { ASSETS_PATH } from '../../shared/resources';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import { assetLocator, resolveAssetId } from '../locator';

const properties: INodeProperties[] = [
	assetLocator,
	...simplifyProperties(assetSchema),
	optionsProperty(),
];

export const description = showFor(['get'], properties);

interface Prepared {
	id: string;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const retry = readRetryPolicy(this.getNodeParameter('options', i, {}) as IDataObject);
	const { id, label } = await resolveAssetId.call(this, i, retry);
	if (!id) throw new NodeOperationError(this.getNode(), `No ${label} exists`, { itemIndex: i });
	return { id, retry };
}

export async function execute(
	this: IExecuteFunctions,
	{ id, retry }: Prepared,
	i: number,
): Promise<IDataObject[]> {
	return simplifyFor(
		this,
		i,
		assetSchema,
	)([
		await apiRequest.call(this, 'GET', `${ASSETS_PATH}/${id}`, {
			operation: `get asset ${id}`,
			answer: 'record',
			itemIndex: i,
			retry,
		}),
	]);
}
