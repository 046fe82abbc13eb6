import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { showFor } from '../../shared/descriptions/showFor';
import { listOptions, readListRequest, type ListRequest } from '../../shared/listInput';
import { CONTRACTS_PATH } from '../../shared/resources';
import { contractSchema } from '../../shared/schema/contract';
import { collect, paginate } from '../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...filterProperties(contractSchema, { listField: 'lineItems', resourceLabel: 'contracts' }),
	listOptions(
		'contracts',
		'the external ID, reference, vendor name, notes and line item descriptions',
	),
];

export const description = showFor(['getAll'], properties);

export async function prepare(this: IExecuteFunctions, i: number): Promise<ListRequest> {
	return await readListRequest.call(this, i, contractSchema, { listField: 'lineItems' });
}

export async function execute(
	this: IExecuteFunctions,
	request: ListRequest,
	i: number,
): Promise<IDataObject[]> {
	return await collect(
		paginate.call(this, CONTRACTS_PATH, request.qs, {
			operation: 'list contracts',
			limit: request.limit,
			pageSize: request.pageSize,
			itemIndex: i,
			retry: request.retry,
		}),
	);
}
