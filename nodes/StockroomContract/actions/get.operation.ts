import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import {
	optionsProperty,
	readRetryPolicy,
	simplifyFor,
	simplifyProperties,
} from '../../shared/descriptions/common';
import { showFor } from '../../shared/descriptions/showFor';
import { contractSchema } from '../../shared/schema/contract';
import { CONTRACTS_PATH } from '../../shared/resources';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import { contractKey, contractLocator } from '../locator';

const properties: INodeProperties[] = [
	contractLocator,
	...simplifyProperties(contractSchema),
	optionsProperty(),
];

export const description = showFor(['get'], properties);

interface Prepared {
	key: string;
	label: string;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	return {
		...contractKey(this.getNodeParameter('contract', i) as { mode: string; value: string }),
		retry: readRetryPolicy(this.getNodeParameter('options', i, {}) as IDataObject),
	};
}

export async function execute(
	this: IExecuteFunctions,
	{ key, label, retry }: Prepared,
	i: number,
): Promise<IDataObject[]> {
	return simplifyFor(
		this,
		i,
		contractSchema,
	)([
		await apiRequest.call(this, 'GET', `${CONTRACTS_PATH}/${key}`, {
			operation: `get the ${label}`,
			answer: 'record',
			itemIndex: i,
			retry,
		}),
	]);
}
