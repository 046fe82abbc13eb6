import { randomUUID } from 'node:crypto';

import { ASSETS_PATH } from '../nodes/shared/resources';
import {
	buildWorkflow,
	CREDENTIAL_TYPE,
	NODE,
	type CredentialRef,
	type NodeSpec,
	type WorkflowJson,
} from '../scripts/n8n';

/**
 * The benchmarked workflows. Each starts with a production Webhook that answers when the last node
 * has run (so the caller's wall time covers the whole execution) and ends with a Summarize node
 * that reduces the items to one count, so answering and bookkeeping never dominate.
 */

/** n8n's HTTP Request node as a user adding it today gets it (its default version). */
const HTTP_REQUEST_VERSION = 4.5;

/** One chain of nodes from a Webhook; this package's nodes get `credential`. */
const chain = (path: string, credential: CredentialRef, nodes: NodeSpec[]): WorkflowJson =>
	buildWorkflow(`bench ${path}`, credential, [[webhook(path), ...nodes]], { start: false });

const webhook = (path: string): NodeSpec => ({
	name: 'Webhook',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	webhookId: randomUUID(),
	parameters: {
		httpMethod: 'POST',
		path,
		responseMode: 'lastNode',
		responseData: 'firstEntryJson',
		options: {},
	},
});

const count: NodeSpec = {
	name: 'Count',
	type: 'n8n-nodes-base.summarize',
	typeVersion: 1.1,
	parameters: {
		fieldsToSummarize: { values: [{ aggregation: 'count', field: 'id' }] },
		options: {},
	},
};

const splitOut = (name: string, field: string): NodeSpec => ({
	name,
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	parameters: { fieldToSplitOut: field, options: {} },
});

const assetNode = (parameters: Record<string, unknown>): NodeSpec => ({
	name: 'Asset node',
	type: NODE.asset,
	parameters,
});

/** The HTTP Request node with the same credential, as a predefined credential type. */
const httpNode = (credential: CredentialRef, parameters: Record<string, unknown>): NodeSpec => ({
	name: 'HTTP Request',
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: HTTP_REQUEST_VERSION,
	parameters: {
		authentication: 'predefinedCredentialType',
		nodeCredentialType: CREDENTIAL_TYPE,
		...parameters,
	},
	credentials: { [CREDENTIAL_TYPE]: credential },
});

/** A Get Many filter built in the node's UI: three conditions, all must match. */
export interface BuilderFilter {
	matchType: 'all' | 'any';
	conditions: Array<Record<string, unknown>>;
}

/** Asset node, Get Many, Return All with Simplify (the main fields of each asset only). */
export function assetListSimplified(path: string, credential: CredentialRef) {
	return chain(path, credential, [
		assetNode({ operation: 'getAll', returnAll: true, simplify: true }),
		count,
	]);
}

/** Asset node, Get Many, Return All (page size 1000, the default), optionally filtered. */
export function assetList(path: string, credential: CredentialRef, filter?: BuilderFilter) {
	const filterParameters = filter
		? {
				filterMode: 'manual',
				matchType: filter.matchType,
				conditions: { condition: filter.conditions },
			}
		: {};
	return chain(path, credential, [
		assetNode({ operation: 'getAll', returnAll: true, ...filterParameters }),
		count,
	]);
}

/**
 * The HTTP Request node listing the same assets with n8n's built-in pagination: follow `next`
 * until there is none (real-n8n.md), 1000 per page, then one item per asset with Split Out.
 */
export function httpList(
	path: string,
	credential: CredentialRef,
	baseUrl: string,
	filter?: string,
) {
	const query = [{ name: 'limit', value: '1000' }];
	if (filter !== undefined) query.push({ name: 'filter', value: filter });
	return chain(path, credential, [
		httpNode(credential, {
			method: 'GET',
			url: `${baseUrl}${ASSETS_PATH}`,
			sendQuery: true,
			queryParameters: { parameters: query },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'responseContainsNextURL',
						nextURL: '={{ $response.body.next }}',
						paginationCompleteWhen: 'other',
						completeExpression: '={{ !$response.body.next }}',
					},
				},
			},
		}),
		splitOut('Split Out', 'results'),
		count,
	]);
}

/** The webhook's body `{ items: [...] }` becomes one item per asset, then each is upserted. */
export function assetUpsert(path: string, credential: CredentialRef) {
	return chain(path, credential, [
		splitOut('Items', 'body.items'),
		assetNode({ operation: 'upsert', inputMode: 'json' }),
		count,
	]);
}

/** The HTTP Request node sending each item as the body of a PUT. */
export function httpUpsert(path: string, credential: CredentialRef, baseUrl: string) {
	return chain(path, credential, [
		splitOut('Items', 'body.items'),
		httpNode(credential, {
			method: 'PUT',
			url: `${baseUrl}${ASSETS_PATH}`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ $json }}',
			options: {},
		}),
		count,
	]);
}
