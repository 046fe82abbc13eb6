import { randomUUID } from 'node:crypto';

import { ASSETS_PATH } from '../nodes/shared/resources';
import {
	buildWorkflow,
	CREDENTIAL_TYPE,
	locator,
	NODE,
	toNode,
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

/**
 * A Webhook alone. n8n keeps the data of the last execution it ran until it runs another one,
 * so the bench runs this between measured runs: each then starts without the last run's items.
 */
export function releaseLastRun(path: string, credential: CredentialRef) {
	return chain(path, credential, []);
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

/**
 * Issue 24's sync: the webhook's body `{ items: [...] }` is the complete export of a source, and
 * the assets are made to match it on `fields` (External ID the key), deleting what it lacks.
 */
export function assetSync(
	path: string,
	credential: CredentialRef,
	fields: string[],
	scope?: string,
) {
	return chain(path, credential, [
		splitOut('Source rows', 'body.items'),
		{
			name: 'Sync',
			type: NODE.asset,
			typeVersion: 2,
			parameters: {
				operation: 'sync',
				syncKey: 'externalId',
				fieldsToSync: fields,
				missingRecords: 'delete',
				...(scope && { filterMode: 'expression', filterExpression: scope }),
				options: {},
			},
		},
		count,
	]);
}

/**
 * Issue 34's Contract Sync: the webhook's body `{ items: [...] }` is a procurement export, one row
 * per line item (the contract's fields and `lineItem.<field>`); missing contracts are deleted.
 */
export function contractSync(
	path: string,
	credential: CredentialRef,
	fields: string[],
	lineFields: string[],
) {
	return chain(path, credential, [
		splitOut('Source rows', 'body.items'),
		{
			name: 'Sync',
			type: NODE.contract,
			typeVersion: 2,
			parameters: {
				operation: 'sync',
				inputShape: 'lineItemRows',
				fieldsToSync: fields,
				lineItemFieldsToSync: lineFields,
				filterMode: 'expression',
				filterExpression: 'externalId sw "PO-"',
				missingRecords: 'delete',
				options: {},
			},
		},
		count,
	]);
}

/**
 * The same job built by hand, as users did before the Sync operation: Get Many beside the source,
 * n8n's Compare Datasets on External ID (Fuzzy Compare, so only the source's fields are compared,
 * and Input A's version where they differ), Create or Update (Merge) for what is new or
 * different, Delete by ID for what the source lacks; Merge and Count give one answer.
 */
export function handBuiltSync(path: string, credential: CredentialRef): WorkflowJson {
	const specs: NodeSpec[] = [
		webhook(path),
		splitOut('Source rows', 'body.items'),
		{ ...assetNode({ operation: 'getAll', returnAll: true }), name: 'Get Many', typeVersion: 2 },
		{
			name: 'Compare Datasets',
			type: 'n8n-nodes-base.compareDatasets',
			typeVersion: 2.3,
			parameters: {
				mergeByFields: { values: [{ field1: 'externalId', field2: 'externalId' }] },
				resolve: 'preferInput1',
				fuzzyCompare: true,
				options: {},
			},
		},
		{
			...assetNode({ operation: 'upsert', mode: 'merge', inputMode: 'json', options: {} }),
			name: 'Create or Update',
			typeVersion: 2,
		},
		{
			...assetNode({ operation: 'delete', asset: locator('id', '={{ $json.id }}'), options: {} }),
			name: 'Delete',
			typeVersion: 2,
		},
		{
			name: 'Merge',
			type: 'n8n-nodes-base.merge',
			typeVersion: 3,
			parameters: { mode: 'append' },
		},
		count,
	];
	const to = (node: string, index = 0) => [{ node, type: 'main', index }];
	return {
		name: `bench ${path}`,
		nodes: specs.map((spec, i) => toNode(spec, [i * 260, 0], credential)),
		connections: {
			Webhook: { main: [[...to('Source rows'), ...to('Get Many')]] },
			'Source rows': { main: [to('Compare Datasets', 0)] },
			'Get Many': { main: [to('Compare Datasets', 1)] },
			// outputs: In A only, Same, Different, In B only
			'Compare Datasets': {
				main: [to('Create or Update'), [], to('Create or Update'), to('Delete')],
			},
			'Create or Update': { main: [to('Merge', 0)] },
			Delete: { main: [to('Merge', 1)] },
			Merge: { main: [to('Count')] },
		},
		settings: { executionOrder: 'v1' },
	};
}
