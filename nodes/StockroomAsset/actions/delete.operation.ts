import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import { showFor } from '../../shared/descriptions/showFor';
import { ASSETS_PATH } from '../../shared/resources';
import { apiRequest, isNotFound, type RetryPolicy } from '../../shared/transport';
import { assetLocator, resolveAssetId } from '../locator';

const properties: INodeProperties[] = [
	assetLocator,
	optionsProperty({
		displayName: 'Ignore Missing Asset',
		name: 'ignoreNotFound',
		type: 'boolean',
		default: false,
		description:
			'Whether to succeed, with "deleted": false, when the asset does not exist (e.g. it was already deleted)',
	}),
];

export const description = showFor(['delete'], properties);
export const writes = true;

interface Prepared {
	id: string | null;
	/** When the asset was given by External ID. */
	externalId?: string;
	label: string;
	ignoreNotFound: boolean;
	retry: RetryPolicy;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<Prepared> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const retry = readRetryPolicy(options);
	const { id, label, externalId } = await resolveAssetId.call(this, i, retry);
	return { id, externalId, label, ignoreNotFound: options.ignoreNotFound === true, retry };
}

export async function execute(
	this: IExecuteFunctions,
	prepared: Prepared,
	i: number,
): Promise<IDataObject[]> {
	// the asset as it was asked for: by its ID, or by the External ID when none has it
	const notFound =
		prepared.id === null
			? { externalId: prepared.externalId, deleted: false, notFound: true }
			: { id: prepared.id, deleted: false, notFound: true };
	if (prepared.id === null) {
		if (prepared.ignoreNotFound) return [notFound];
		throw new NodeOperationError(
			this.getNode(),
			`Could not delete the ${prepared.label}: it does not exist`,
			{ itemIndex: i },
		);
	}
	try {
		await apiRequest.call(this, 'DELETE', `${ASSETS_PATH}/${prepared.id}`, {
			operation: `delete ${prepared.label}`,
			answer: 'none',
			itemIndex: i,
			retry: prepared.retry,
		});
	} catch (error) {
		if (prepared.ignoreNotFound && isNotFound(error)) return [notFound];
		// n8n's verification scan wants every error a node throws wrapped
		throw new NodeApiError(this.getNode(), error as JsonObject);
	}
	return [{ id: prepared.id, deleted: true }];
}
