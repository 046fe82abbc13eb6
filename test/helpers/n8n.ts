import { ExecuteContext, LoadOptionsContext, PollContext } from 'n8n-core';
import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeParameters,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypes,
	type IRunExecutionData,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { StockroomOAuth2Api } from '../../credentials/StockroomOAuth2Api.credentials';
import type { Sandbox } from '../sandbox/server';

/**
 * Runs our nodes inside n8n-core's real execution contexts, so parameter resolution (defaults,
 * expressions, resource locators), `continueOnFail`, error wrapping and above all n8n's own OAuth2
 * client-credentials code (token request with HTTP Basic, token stored in the credential, new
 * token and one retry on 401) run for real, over HTTP, against the sandbox.
 */

export interface CredentialInput {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	scopes?: string[];
}

/** The credential as n8n would store it, with the OAuth2 token n8n-core saves into it. */
export class CredentialStore {
	oauthTokenData: IDataObject | undefined;

	constructor(public input: CredentialInput) {}

	/** The decrypted credential: our properties' defaults, `$self` expressions resolved. */
	decrypted(): ICredentialDataDecryptedObject {
		const data: IDataObject = { scopes: this.input.scopes, ...this.input };
		if (this.input.scopes === undefined) delete data.scopes;
		const expressions: Array<[string, string]> = [];
		for (const property of new StockroomOAuth2Api().properties) {
			if (data[property.name] !== undefined) continue;
			const value = property.default;
			if (typeof value === 'string' && value.startsWith('={{'))
				expressions.push([property.name, value.slice(3, -2)]);
			else data[property.name] = value as IDataObject[string];
		}
		// the expressions are plain JavaScript over $self; evaluate them as n8n's engine would
		for (const [name, expression] of expressions) {
			data[name] = new Function('$self', `return (${expression});`)(data) as string;
		}
		if (this.oauthTokenData) data.oauthTokenData = this.oauthTokenData;
		return data as ICredentialDataDecryptedObject;
	}
}

export const sandboxCredential = (
	sandbox: Sandbox,
	overrides: Partial<CredentialInput> = {},
): CredentialStore =>
	new CredentialStore({
		baseUrl: sandbox.url,
		clientId: sandbox.client.id,
		clientSecret: sandbox.client.secret,
		...overrides,
	});

const CREDENTIAL_TYPE = 'stockroomOAuth2Api';

function additionalDataFor(
	store: CredentialStore,
	currentNodeParameters?: INodeParameters,
): IWorkflowExecuteAdditionalData {
	const credentialsHelper = {
		getParentTypes: (type: string) => (type === CREDENTIAL_TYPE ? ['oAuth2Api'] : []),
		isCredentialUsableByNode: () => true,
		getDecrypted: async () => store.decrypted(),
		updateCredentialsOauthTokenData: async (
			_node: unknown,
			_type: string,
			data: ICredentialDataDecryptedObject,
		) => {
			store.oauthTokenData = data.oauthTokenData as IDataObject;
		},
		runPreAuthentication: async () => undefined,
		preAuthentication: async () => undefined,
		authenticate: async (_credentials: unknown, _type: string, options: unknown) => options,
	};
	return {
		credentialsHelper,
		executionId: 'test-execution',
		variables: {},
		currentNodeParameters,
	} as unknown as IWorkflowExecuteAdditionalData;
}

function workflowWith(
	nodeType: INodeType,
	parameters: INodeParameters,
	staticData: IDataObject = {},
): { workflow: Workflow; node: INode } {
	const nodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const definition: INode = {
		id: 'node-under-test',
		name: nodeType.description.defaults.name ?? 'Node',
		type: `n8n-nodes-stockroom.${nodeType.description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'credential-under-test', name: 'Stockroom' } },
	};
	const workflow = new Workflow({
		id: 'workflow-under-test',
		name: 'Test',
		nodes: [definition],
		connections: {},
		active: false,
		nodeTypes,
		staticData: { [`node:${definition.name}`]: staticData },
		settings: { timezone: 'UTC' },
	});
	return { workflow, node: workflow.getNode(definition.name)! };
}

export interface RunOptions {
	parameters: INodeParameters;
	credential: CredentialStore;
	input?: IDataObject[];
	continueOnFail?: boolean;
}

/** Runs a regular node's `execute` over the input items; returns its outputs. */
export async function runNode(
	nodeType: INodeType,
	options: RunOptions,
): Promise<INodeExecutionData[][]> {
	const { workflow, node } = workflowWith(nodeType, options.parameters);
	if (options.continueOnFail) node.onError = 'continueRegularOutput';
	const items: INodeExecutionData[] = (options.input ?? [{}]).map((json) => ({ json }));
	const inputData = { main: [items] };
	const runExecutionData = {
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [],
			waitingExecution: {},
			waitingExecutionSource: {},
			metadata: {},
		},
	} as unknown as IRunExecutionData;
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(options.credential),
		'manual',
		runExecutionData,
		0,
		items,
		inputData,
		{ node, data: inputData, source: null },
		[],
	);
	return (await nodeType.execute!.call(context)) as INodeExecutionData[][];
}

export interface PollOptions {
	parameters: INodeParameters;
	credential: CredentialStore;
	/** The trigger's static data, kept between polls (mutated in place, as n8n does). */
	staticData: IDataObject;
	mode?: 'trigger' | 'manual';
	/** What `getPollBudgetMs()` answers (n8n's default is five minutes). */
	budgetMs?: number;
}

/** Runs one poll of a polling trigger. */
export async function runPoll(
	nodeType: INodeType,
	options: PollOptions,
): Promise<INodeExecutionData[][] | null> {
	const { workflow, node } = workflowWith(nodeType, options.parameters, options.staticData);
	const context = new PollContext(
		workflow,
		node,
		additionalDataFor(options.credential),
		options.mode ?? 'trigger',
		'activate',
		undefined,
		undefined,
		undefined,
		undefined,
		() => options.staticData,
		() => options.budgetMs ?? 5 * 60_000,
	);
	return await nodeType.poll!.call(context);
}

/** Calls a `loadOptions` method of a node with the given current parameters. */
export async function runLoadOptions(
	nodeType: INodeType,
	method: string,
	options: { parameters: INodeParameters; credential: CredentialStore },
): Promise<INodePropertyOptions[]> {
	const { workflow, node } = workflowWith(nodeType, options.parameters);
	const context = new LoadOptionsContext(
		workflow,
		node,
		additionalDataFor(options.credential, options.parameters),
		'',
	);
	const methods = (nodeType.methods?.loadOptions ?? {}) as Record<
		string,
		(this: LoadOptionsContext) => Promise<INodePropertyOptions[]>
	>;
	return await methods[method].call(context);
}

/** Calls a `listSearch` method (resource locator list) of a node. */
export async function runListSearch(
	nodeType: INodeType,
	method: string,
	options: { credential: CredentialStore; filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const { workflow, node } = workflowWith(nodeType, {});
	const context = new LoadOptionsContext(
		workflow,
		node,
		additionalDataFor(options.credential, {}),
		'',
	);
	const methods = (nodeType.methods?.listSearch ?? {}) as Record<
		string,
		(this: LoadOptionsContext, filter?: string, token?: string) => Promise<INodeListSearchResult>
	>;
	return await methods[method].call(context, options.filter, options.paginationToken);
}
