import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import { showFor } from '../../shared/descriptions/showFor';
import { CONTRACTS_PATH } from '../../shared/resources';
import { apiRequest, isNotFound, type RetryPolicy } from '../../shared/transport';
import { contractKey, contractLocator } from '../locator';

const properties: INodeProperties[] = [
	contractLocator,
	optionsProperty({
		displayName: 'Ignore Missing Contract',
		name: 'ignoreNotFound',
		type: 'boolean',
		default: false,
		description:
			'Whether to succeed, with "deleted": false, when the contract does not exist (e.g. it was already deleted)',
	}),
];

export const description = showFor(['delete'], properties);
export const writes = true;

interface Prepared {
	key: string;
	/** The output names what was deleted the way it was given: `id` or `externalId`. */
	keyName: 'id' | 'externalId';
	value: string;
	label: string;
	ignoreNotFound: boolean;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const locator = this.getNodeParameter('contract', i) as { mode: string; value: string };
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	return {
		...contractKey(locator),
		keyName: locator.mode === 'externalId' ? 'externalId' : 'id',
		value: String(locator.value).trim(),
		ignoreNotFound: options.ignoreNotFound === true,
		retry: readRetryPolicy(options),
	};
}

export async function execute(
	this: IExecuteFunctions,
	prepared: Prepared,
	i: number,
): Promise<IDataObject[]> {
	try {
		await apiRequest.call(this, 'DELETE', `${CONTRACTS_PATH}/${prepared.key}`, {
			operation: `delete the ${prepared.label}`,
			answer: 'none',
			itemIndex: i,
			retry: prepared.retry,
		});
	} catch (error) {
		if (prepared.ignoreNotFound && isNotFound(error)) {
			return [{ [prepared.keyName]: prepared.value, deleted: false, notFound: true }];
		}
		throw new NodeApiError(this.getNode(), error as JsonObject);
	}
	return [{ [prepared.keyName]: prepared.value, deleted: true }];
}
