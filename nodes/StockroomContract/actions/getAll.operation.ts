import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { returnAllOrLimit, simplifyProperties } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { showFor } from '../../shared/descriptions/showFor';
import { listOptions, readList, readListRequest, type ListRequest } from '../../shared/listInput';
import { CONTRACTS_PATH } from '../../shared/resources';
import { contractSchema } from '../../shared/schema/contract';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	...simplifyProperties(contractSchema),
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
	return await readList.call(this, request, {
		path: CONTRACTS_PATH,
		nouns: 'contracts',
		itemIndex: i,
		schema: contractSchema,
	});
}
