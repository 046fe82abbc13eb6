import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { ExpressionEvaluator, IsolatedVmBridge } from '@n8n/expression-runtime';
import {
	Credentials,
	ExecuteContext,
	getAdditionalKeys,
	InstanceSettings,
	LoadOptionsContext,
	PollContext,
} from 'n8n-core';
import {
	createRunExecutionData,
	Expression,
	ICredentialsHelper,
	LoggerProxy,
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialsExpressionResolveValues,
	type IDataObject,
	type IExecuteData,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeParameters,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypes,
	type ITaskDataConnections,
	type IWorkflowExecuteAdditionalData,
	type NodeExecutionHint,
	type ResourceMapperFields,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { expressionSandboxHooks } from 'n8n-workflow/dist/cjs/expression-sandboxing.js';
import { StockroomOAuth2Api } from '../../credentials/StockroomOAuth2Api.credentials';
import type { Sandbox } from '../../sandbox/server';
import { sandboxCredentialInput, type CredentialInput } from '../../sandbox/credential';

export type { CredentialInput } from '../../sandbox/credential';

/**
 * Runs our nodes inside n8n-core's real execution contexts, so parameter resolution (defaults,
 * expressions, resource locators), `continueOnFail`, error wrapping and above all n8n's own OAuth2
 * client-credentials code (token request with HTTP Basic, token stored in the credential, new
 * token and one retry on 401) run for real, over HTTP. Only what n8n's CLI adds around n8n-core
 * (the credentials database, the workflow runner) is replaced, by the smallest faithful copy.
 */

const CREDENTIAL_TYPE = 'stockroomOAuth2Api';

// n8n 2.41 evaluates expressions in isolated-vm (N8N_EXPRESSION_ENGINE defaults to 'vm'), and the
// engines differ: the legacy one turns an error thrown in an expression into `undefined`, so the
// credential's "Base URL must start with https://" would vanish. Expression.initExpressionEngine
// loads the runtime with `import()`, which jest refuses without --experimental-vm-modules: this
// is its body for the 'vm' engine, with n8n's settings (@n8n/config ExpressionEngineConfig) as
// defaults but two that n8n also offers, which change when an isolate is built, not what an
// expression gives: N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE (a run builds its isolate at its first
// expression; by default each run takes one and disposes of it, and back-to-back polls wait for
// the next to be built: 15 histories of the trigger property test took 120 s, now 20 s) and
// N8N_EXPRESSION_ENGINE_COMPILE_CACHE (the runtime bundle is compiled once).
let vmEngineStarted: Promise<void> | undefined;
const vmEngine = async () => await (vmEngineStarted ??= startVmEngine());
async function startVmEngine(): Promise<void> {
	const evaluator = new ExpressionEvaluator({
		createBridge: () =>
			new IsolatedVmBridge({
				timeout: 5000,
				memoryLimit: 128,
				logger: LoggerProxy,
				compileCache: true,
			}),
		maxCodeCacheSize: 1024,
		poolSize: 1,
		lazyAcquire: true,
		hooks: expressionSandboxHooks,
		logger: LoggerProxy,
	});
	await evaluator.initialize();
	Object.assign(Expression, { expressionEngine: 'vm', vmEvaluator: evaluator });
}

// n8n's logger prints warnings a test provokes on purpose (a trigger continuing after a fault)
process.env.N8N_LOG_LEVEL ??= 'error';

// n8n-core's contexts read InstanceSettings from the container, which otherwise loads (or creates,
// with a random encryption key) ~/.n8n/config: keep tests away from a real n8n's settings.
const n8nFolder = mkdtempSync(path.join(tmpdir(), 'stockroom-jest-n8n-'));
Container.set(
	InstanceSettings,
	new InstanceSettings(
		{
			n8nFolder,
			userHome: n8nFolder,
			encryptionKey: 'stockroom-tests',
			enforceSettingsFilePermissions: false,
		},
		Container.get(Logger),
	),
);

// jest: the engine's isolates would keep the worker alive
if (typeof afterAll === 'function') {
	afterAll(async () => {
		await Expression.disposeExpressionEngine();
		rmSync(n8nFolder, { recursive: true, force: true });
	});
}

/**
 * The warnings (or, given 'info', the notes) our nodes write to n8n's log (`this.logger.warn`)
 * from now until `restore`. n8n's logger at level error makes `warn` a constant no-op, so a logger
 * over it takes its place.
 */
export function captureWarnings(level: 'warn' | 'info' = 'warn'): {
	messages: () => string[];
	restore: () => void;
} {
	const original = Container.get(Logger);
	const warnings: string[] = [];
	const logger = Object.create(original) as Logger;
	Object.defineProperty(logger, level, { value: (message: string) => warnings.push(message) });
	Container.set(Logger, logger);
	return { messages: () => [...warnings], restore: () => Container.set(Logger, original) };
}

/** As n8n runs a node, a poll or a list: with an expression isolate held by the workflow. */
async function inIsolate<T>(workflow: Workflow, run: () => Promise<T>): Promise<T> {
	await vmEngine();
	return await workflow.expression.withIsolate(run);
}

/**
 * What our credential inherits from n8n-nodes-base 2.41.1 `OAuth2Api.credentials` (properties we
 * override, those hidden for client credentials, and `doNotInherit` ones left out), plus the
 * `oauthTokenData` property n8n's CLI CredentialsHelper.getCredentialsProperties adds to it.
 */
const OAUTH2_API_PROPERTIES: INodeProperties[] = [
	{
		displayName: 'Use Dynamic Client Registration',
		name: 'useDynamicClientRegistration',
		type: 'hidden',
		default: false,
	},
	{
		displayName: 'Client ID',
		name: 'clientId',
		type: 'string',
		displayOptions: { show: { useDynamicClientRegistration: [false] } },
		default: '',
		required: true,
	},
	{
		displayName: 'Authentication',
		name: 'clientCredentialType',
		type: 'hidden',
		default: 'clientSecret',
	},
	{
		displayName: 'Client Secret',
		name: 'clientSecret',
		type: 'string',
		displayOptions: { show: { useDynamicClientRegistration: [false] } },
		typeOptions: { password: true },
		default: '',
		required: true,
	},
	{ displayName: 'Private Key', name: 'privateKey', type: 'hidden', default: '' },
	{ displayName: 'Certificate', name: 'certificate', type: 'hidden', default: '' },
	{
		displayName: 'oauthTokenData',
		name: 'oauthTokenData',
		type: 'json',
		required: false,
		default: {},
	},
];

/** CredentialsHelper.getCredentialsProperties of n8n's CLI: the parent's, then our own. */
function credentialProperties(): INodeProperties[] {
	const properties: INodeProperties[] = [];
	NodeHelpers.mergeNodeProperties(properties, OAUTH2_API_PROPERTIES);
	NodeHelpers.mergeNodeProperties(properties, new StockroomOAuth2Api().properties);
	return properties;
}

let credentialCount = 0;

/** One saved credential, as n8n's database holds it, with the OAuth2 token n8n-core saves into it. */
export class CredentialStore {
	/** Each its own id: n8n-core coalesces concurrent token refreshes per credential id. */
	readonly details: INodeCredentialsDetails = {
		id: `credential-${++credentialCount}`,
		name: 'Stockroom',
	};

	/** The stored data: what the user typed (defaults and `$self` expressions not applied). */
	data: ICredentialDataDecryptedObject;

	/** How many times a node read it (`getCredentials`: read, decrypted and resolved, as n8n does). */
	reads = 0;

	/** Called after each such read (to change what is stored while a run goes on). */
	afterRead?: () => void;

	constructor(input: CredentialInput) {
		this.data = { ...input };
	}

	/** The token n8n-core fetched and saved; replace it to simulate an expired or revoked one. */
	get oauthTokenData(): IDataObject | undefined {
		return this.data.oauthTokenData as IDataObject | undefined;
	}

	set oauthTokenData(token: IDataObject | undefined) {
		const { oauthTokenData: _replaced, ...rest } = this.data;
		this.data = token === undefined ? rest : { ...rest, oauthTokenData: token };
	}
}

const stores = new Map<string, CredentialStore>();

/** The credential saved with these values: runs given the same values share it and its token. */
export function credentialStore(input: CredentialInput): CredentialStore {
	const key = JSON.stringify([input.baseUrl, input.clientId, input.clientSecret, input.scopes]);
	if (!stores.has(key)) stores.set(key, new CredentialStore(input));
	return stores.get(key)!;
}

export const sandboxCredential = (
	sandbox: Sandbox,
	overrides: Partial<CredentialInput> = {},
): CredentialStore => new CredentialStore({ ...sandboxCredentialInput(sandbox), ...overrides });

// n8n's CLI resolves a credential outside a run (polls, lists) in a new one-node workflow holding
// its own isolate; one kept for all evaluates the same, without a 20 ms isolate per request.
let credentialWorkflowStarted: Promise<Workflow> | undefined;
const credentialWorkflow = async () =>
	await (credentialWorkflowStarted ??= (async () => {
		const workflow = new Workflow({
			nodes: [
				{ id: 'mock', name: '', type: 'mock', typeVersion: 1, position: [0, 0], parameters: {} },
			],
			connections: {},
			active: false,
			nodeTypes: nodeTypesOf({ description: { properties: [] } } as unknown as INodeType),
		});
		await vmEngine();
		await workflow.expression.acquireIsolate();
		return workflow;
	})());

/** What n8n-core calls on `additionalData.credentialsHelper`, after n8n's CLI CredentialsHelper. */
class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly store: CredentialStore) {
		super();
	}

	getParentTypes(type: string): string[] {
		return type === CREDENTIAL_TYPE ? ['oAuth2Api'] : [];
	}

	// our credential type does not set restrictToSupportedNodes
	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		this.assertType(type);
		return credentialProperties();
	}

	// n8n-core signs OAuth2 requests itself; `authenticate` applies only a type's own `authenticate`
	async authenticate(
		_credentials: ICredentialDataDecryptedObject,
		_type: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return requestOptions;
	}

	// both only act for types with a `preAuthentication` function (an expirable property)
	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(details: INodeCredentialsDetails, type: string): Promise<Credentials> {
		this.assertType(type);
		const credentials = new Credentials(details, type);
		await credentials.setData(this.store.data);
		return credentials;
	}

	async updateCredentials(
		_details: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.assertType(type);
		this.store.data = { ...data };
	}

	async updateCredentialsOauthTokenData(
		_details: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.assertType(type);
		this.store.oauthTokenData = data.oauthTokenData as IDataObject;
	}

	/** getDecrypted and applyDefaultsAndOverwrites of n8n's CLI, without overwrites or secrets. */
	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_details: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		resolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		this.assertType(type);
		const stored = structuredClone(this.store.data);
		if (raw === true) return stored;
		this.store.reads++;
		this.store.afterRead?.();
		const properties = credentialProperties();
		const values = stored as INodeParameters;
		let decrypted = NodeHelpers.getNodeParameters(properties, values, true, false, null, null)!;
		if (values.oauthTokenData !== undefined) decrypted.oauthTokenData = values.oauthTokenData;
		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		// the credential's data is `$self` in its own expressions
		if (resolveValues) {
			try {
				decrypted = resolveValues.workflow.expression.getParameterValue(
					decrypted,
					resolveValues.runExecutionData,
					resolveValues.runIndex,
					resolveValues.itemIndex,
					resolveValues.node.name,
					resolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decrypted,
				) as INodeParameters;
			} catch (error) {
				(error as Error).message += ' [Error resolving credentials]';
				throw error;
			}
		} else {
			const workflow = await credentialWorkflow();
			decrypted = workflow.expression.getComplexParameterValue(
				workflow.getNode('')!,
				decrypted,
				mode,
				additionalKeys,
				undefined,
				undefined,
				decrypted,
			) as INodeParameters;
		}
		return decrypted as ICredentialDataDecryptedObject;
	}

	private assertType(type: string): void {
		if (type !== CREDENTIAL_TYPE) throw new Error(`No credential of type "${type}" in this test`);
	}
}

function nodeTypesOf(nodeType: INodeType): INodeTypes {
	return {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
}

interface NodeOptions {
	parameters: INodeParameters;
	/** The credential: its values (a store shared by runs given the same values) or a store. */
	credentials?: CredentialInput | CredentialStore;
	/** Same as `credentials` (the name the first suites use). */
	credential?: CredentialInput | CredentialStore;
	/** Defaults to the node's newest version. */
	typeVersion?: number;
	/** The workflow's time zone (its settings); default UTC. */
	timezone?: string;
	/** As n8n runs the node's AI tool variant (type `<name>Tool`), which an agent calls. */
	asTool?: boolean;
}

function storeOf(options: NodeOptions): CredentialStore | undefined {
	const given = options.credentials ?? options.credential;
	return given === undefined || given instanceof CredentialStore ? given : credentialStore(given);
}

function additionalDataFor(
	store: CredentialStore | undefined,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: store ? new InMemoryCredentialsHelper(store) : undefined,
		variables: {},
		// what `$execution.resumeUrl` is built from; n8n's defaults
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		...extra,
	} as IWorkflowExecuteAdditionalData;
}

/** A one-node workflow; the Workflow constructor fills in parameter defaults, as in n8n. */
function workflowWith(
	nodeType: INodeType,
	options: NodeOptions,
	store: CredentialStore | undefined,
	staticData: IDataObject = {},
	workflowId = 'workflow-under-test',
): { workflow: Workflow; node: INode } {
	const { version } = nodeType.description;
	const definition: INode = {
		id: 'node-under-test',
		name: nodeType.description.defaults.name ?? 'Node',
		type: `n8n-nodes-stockroom.${nodeType.description.name}${options.asTool ? 'Tool' : ''}`,
		typeVersion: options.typeVersion ?? (Array.isArray(version) ? Math.max(...version) : version),
		position: [0, 0],
		parameters: options.parameters,
		...(store && { credentials: { [CREDENTIAL_TYPE]: store.details } }),
	};
	const workflow = new Workflow({
		id: workflowId,
		name: 'Test',
		nodes: [definition],
		connections: {},
		active: false,
		nodeTypes: nodeTypesOf(nodeType),
		staticData: { [`node:${definition.name}`]: staticData },
		settings: { timezone: options.timezone ?? 'UTC' },
	});
	return { workflow, node: workflow.getNode(definition.name)! };
}

export interface RunOptions extends NodeOptions {
	/** The input items' JSON (one empty item when neither this nor `items` is given). */
	input?: IDataObject[];
	/** Whole input items, with `binary` or `pairedItem`. */
	items?: INodeExecutionData[];
	/** The node's "On Error: Continue" setting. */
	continueOnFail?: boolean;
	/** The execution's cancel signal (n8n aborts it when someone stops the execution). */
	cancelSignal?: AbortSignal;
	/** Receives the hints the node added for the output pane (`addExecutionHints`). */
	hints?: NodeExecutionHint[];
}

/** Runs a regular node's `execute` over the input items, as n8n's WorkflowExecute.executeNode. */
export async function runNode(
	nodeType: INodeType,
	options: RunOptions,
): Promise<INodeExecutionData[][]> {
	const store = storeOf(options);
	const { workflow, node } = workflowWith(nodeType, options, store);
	if (options.continueOnFail) node.onError = 'continueRegularOutput';
	const items = options.items ?? (options.input ?? [{}]).map((json) => ({ json }));
	const inputData: ITaskDataConnections = { main: [items] };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(store, { executionId: 'execution-under-test' }),
		'manual',
		createRunExecutionData(),
		0,
		items,
		inputData,
		{ node, data: inputData, source: null },
		[],
		options.cancelSignal,
	);
	try {
		const outputs = await inIsolate(
			workflow,
			async () => (await nodeType.execute!.call(context)) as INodeExecutionData[][],
		);
		// as n8n's WorkflowExecute does: an item that carries its error keeps nothing but its message
		for (const item of outputs?.flat() ?? [])
			if (item.error !== undefined) item.json = { error: item.error.message };
		return outputs;
	} finally {
		options.hints?.push(...context.hints);
	}
}

export interface PollOptions extends NodeOptions {
	/** The trigger's static data, kept between polls (mutated in place, as n8n does). */
	staticData: IDataObject;
	/** 'trigger': an active workflow's poll; 'manual': the editor's Fetch Test Event. */
	mode?: 'trigger' | 'manual';
	/** What `getPollBudgetMs()` answers (n8n-core's default is five minutes). */
	budgetMs?: number;
	/**
	 * The workflow's id. A trigger keeps per-process marks by workflow and node: polling as another
	 * workflow is how a test stands for a restarted n8n.
	 */
	workflowId?: string;
}

/** Runs one poll of a polling trigger through n8n-core's PollContext. */
export async function runPoll(
	nodeType: INodeType,
	options: PollOptions,
): Promise<INodeExecutionData[][] | null> {
	const store = storeOf(options);
	const { workflow, node } = workflowWith(
		nodeType,
		options,
		store,
		options.staticData,
		options.workflowId,
	);
	const mode = options.mode ?? 'trigger';
	const context = new PollContext(
		workflow,
		node,
		additionalDataFor(store),
		mode,
		mode === 'manual' ? 'manual' : 'activate',
		undefined,
		undefined,
		undefined,
		undefined,
		undefined,
		() => options.budgetMs ?? 5 * 60_000,
	);
	return await inIsolate(workflow, async () => await nodeType.poll!.call(context));
}

export interface LoadOptionsOptions extends Partial<NodeOptions> {
	/** The parameter being filled, as the editor sends it (e.g. `parameters.assetId`). */
	path?: string;
}

/** A LoadOptionsContext as n8n's DynamicNodeParametersService builds it for the editor. */
function loadOptionsContext(
	nodeType: INodeType,
	options: LoadOptionsOptions,
): { workflow: Workflow; context: LoadOptionsContext } {
	const nodeOptions = { ...options, parameters: options.parameters ?? {} };
	const store = storeOf(nodeOptions);
	const { workflow, node } = workflowWith(nodeType, nodeOptions, store);
	// the editor sends the node's parameters with their defaults
	const additionalData = additionalDataFor(store, { currentNodeParameters: node.parameters });
	return {
		workflow,
		context: new LoadOptionsContext(workflow, node, additionalData, options.path ?? ''),
	};
}

/** Calls a `methods.loadOptions` method of a node with the given current parameters. */
export async function runLoadOptions(
	nodeType: INodeType,
	method: string,
	options: LoadOptionsOptions = {},
): Promise<INodePropertyOptions[]> {
	const load = nodeType.methods?.loadOptions?.[method];
	if (!load) throw new Error(`${nodeType.description.name} has no loadOptions method "${method}"`);
	const { workflow, context } = loadOptionsContext(nodeType, options);
	return await inIsolate(workflow, async () => await load.call(context));
}

/** Calls a `methods.resourceMapping` method (a column mapping's fields) of a node. */
export async function runResourceMapping(
	nodeType: INodeType,
	method: string,
	options: LoadOptionsOptions = {},
): Promise<ResourceMapperFields> {
	const load = nodeType.methods?.resourceMapping?.[method];
	if (!load)
		throw new Error(`${nodeType.description.name} has no resourceMapping method "${method}"`);
	const { workflow, context } = loadOptionsContext(nodeType, options);
	return await inIsolate(workflow, async () => await load.call(context));
}

/** Calls a `methods.listSearch` method (a resource locator's list) of a node. */
export async function runListSearch(
	nodeType: INodeType,
	method: string,
	options: LoadOptionsOptions & { filter?: string; paginationToken?: string } = {},
): Promise<INodeListSearchResult> {
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`${nodeType.description.name} has no listSearch method "${method}"`);
	const { workflow, context } = loadOptionsContext(nodeType, options);
	return await inIsolate(
		workflow,
		async () => await search.call(context, options.filter, options.paginationToken),
	);
}
