import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import { idPattern, recordLocator } from '../../shared/descriptions/locators';
import { showFor } from '../../shared/descriptions/showFor';
import { USERS_PATH } from '../../shared/resources';
import { apiRequest, type RetryPolicy } from '../../shared/transport';

const properties: INodeProperties[] = [
	recordLocator({
		noun: 'User',
		searchListMethod: 'searchUsers',
		idLength: 32,
		idPlaceholder: '2819c223f4a54c2a8a1b2c3d4e5f6a7b',
	}),
	optionsProperty(),
];

export const description = showFor(['get'], properties);

interface Prepared {
	id: string;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const id = String(this.getNodeParameter('user', i, '', { extractValue: true }) ?? '').trim();
	if (!new RegExp(idPattern(32)).test(id))
		throw new Error(`User: "${id}" is not a user ID (32 hexadecimal characters)`);
	return { id, retry: readRetryPolicy(this.getNodeParameter('options', i, {}) as IDataObject) };
}

export async function execute(
	this: IExecuteFunctions,
	{ id, retry }: Prepared,
	i: number,
): Promise<IDataObject[]> {
	return [
		await apiRequest.call(this, 'GET', `${USERS_PATH}/${id}`, {
			operation: `get user ${id}`,
			itemIndex: i,
			retry,
		}),
	];
}
