import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodeListSearchResult,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import {
	credentialStore,
	runListSearch,
	runLoadOptions,
	runNode,
	runPoll,
	type CredentialInput,
} from './n8n';

/** The smallest token endpoint and API: HTTP Basic `client:secret`, bearer tokens it issued. */
interface TokenServer {
	url: string;
	tokenRequests: Array<{ authorization?: string; body: string }>;
	apiRequests: Array<{ path: string; authorization?: string }>;
	/** Tokens the API accepts; clear it to revoke them all. */
	valid: Set<string>;
	close(): Promise<void>;
}

async function startTokenServer(): Promise<TokenServer> {
	let issued = 0;
	const state = {
		tokenRequests: [] as TokenServer['tokenRequests'],
		apiRequests: [] as TokenServer['apiRequests'],
		valid: new Set<string>(),
	};
	const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
		res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
		res.end(JSON.stringify(body));
	};
	const problem = (res: ServerResponse, status: number, title: string, headers = {}) => {
		res.writeHead(status, { 'Content-Type': 'application/problem+json', ...headers });
		res.end(JSON.stringify({ type: 'about:blank', title, status, detail: `${title} (test)` }));
	};
	const token = (req: IncomingMessage, res: ServerResponse, body: string) => {
		state.tokenRequests.push({ authorization: req.headers.authorization, body });
		const form = new URLSearchParams(body);
		if (req.headers.authorization !== `Basic ${Buffer.from('client:secret').toString('base64')}`)
			return json(res, 400, { error: 'invalid_client' });
		if (form.get('grant_type') !== 'client_credentials')
			return json(res, 400, { error: 'unsupported_grant_type' });
		if (form.get('scope')?.includes('Forbidden.Scope'))
			return json(res, 400, { error: 'invalid_scope' });
		const accessToken = `token-${++issued}`;
		state.valid.add(accessToken);
		json(res, 200, {
			access_token: accessToken,
			expires_in: 3600,
			token_type: 'Bearer',
			scope: form.get('scope') ?? '',
		});
	};
	const api = (req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url!, 'http://localhost');
		state.apiRequests.push({ path: url.pathname, authorization: req.headers.authorization });
		if (!state.valid.has(req.headers.authorization?.replace(/^Bearer /, '') ?? ''))
			return problem(res, 401, 'Unauthorized', { 'WWW-Authenticate': 'Bearer' });
		switch (url.pathname) {
			case '/api/thing':
				return json(
					res,
					200,
					{ id: 'thing', name: url.searchParams.get('name') },
					{ 'X-Trace-Id': 'trace-1' },
				);
			case '/api/always401':
				return problem(res, 401, 'Unauthorized');
			case '/api/limited':
				return problem(res, 429, 'Too Many Requests', { 'Retry-After': '2' });
			case '/api/down':
				return problem(res, 503, 'Service Unavailable');
			case '/api/reset':
				return req.socket.destroy();
			default:
				return problem(res, 404, 'Not Found');
		}
	};
	const server: Server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => (req.url === '/connect/token' ? token(req, res, body) : api(req, res)));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return Object.assign(state, {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	});
}

async function get(
	context: IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions,
	path: string,
	options: IDataObject = {},
): Promise<unknown> {
	const { baseUrl } = await context.getCredentials<{ baseUrl: string }>('stockroomOAuth2Api');
	return await context.helpers.httpRequestWithAuthentication.call(context, 'stockroomOAuth2Api', {
		method: 'GET',
		url: `${baseUrl}${path}`,
		...options,
	});
}

/** One GET through `httpRequestWithAuthentication` per item, its answer as the item's JSON. */
class ThingNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Thing',
		name: 'thing',
		group: ['transform'],
		version: [1, 2],
		description: 'Test node',
		defaults: { name: 'Thing' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'stockroomOAuth2Api', required: true }],
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '/api/thing' },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [
					{
						displayName: 'Full Response',
						name: 'returnFullResponse',
						type: 'boolean',
						default: false,
					},
					{
						displayName: 'Ignore HTTP Status Errors',
						name: 'ignoreHttpStatusErrors',
						type: 'boolean',
						default: false,
					},
				],
			},
		],
	};

	methods = {
		loadOptions: {
			async things(this: ILoadOptionsFunctions) {
				const thing = (await get(this, this.getNodeParameter('path') as string)) as IDataObject;
				return [{ name: String(thing.id), value: String(thing.id) }];
			},
		},
		listSearch: {
			async searchThings(
				this: ILoadOptionsFunctions,
				filter?: string,
				paginationToken?: string,
			): Promise<INodeListSearchResult> {
				const thing = (await get(this, `/api/thing?name=${filter}`)) as IDataObject;
				return {
					results: [{ name: String(thing.name), value: String(thing.id) }],
					paginationToken: paginationToken ? undefined : 'page-2',
				};
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		for (let item = 0; item < this.getInputData().length; item++) {
			try {
				const path = this.getNodeParameter('path', item) as string;
				const json = await get(this, path, this.getNodeParameter('options', item) as IDataObject);
				output.push({ json: json as IDataObject, pairedItem: { item } });
			} catch (error) {
				if (!this.continueOnFail()) throw error;
				output.push({ json: { error: (error as Error).message }, pairedItem: { item } });
			}
		}
		return [output];
	}

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const state = this.getWorkflowStaticData('node');
		state.polls = ((state.polls as number) ?? 0) + 1;
		const thing = (await get(this, '/api/thing')) as IDataObject;
		const { typeVersion } = this.getNode();
		return [
			[
				{
					json: { ...thing, budgetMs: this.getPollBudgetMs!(), mode: this.getMode(), typeVersion },
				},
			],
		];
	}
}

const node = new ThingNode();
const basic = `Basic ${Buffer.from('client:secret').toString('base64')}`;
let server: TokenServer;
let credentials: CredentialInput;
beforeAll(async () => {
	server = await startTokenServer();
	credentials = { baseUrl: server.url, clientId: 'client', clientSecret: 'secret' };
});
afterAll(async () => await server.close());
beforeEach(() => {
	server.tokenRequests.length = 0;
	server.apiRequests.length = 0;
	// the same saved credential in every test, without a token at the start of each
	credentialStore(credentials).oauthTokenData = undefined;
});

/** What a run threw. */
async function failure(run: Promise<unknown>): Promise<Error & IDataObject> {
	const error = await run.then(
		() => undefined,
		(thrown: Error & IDataObject) => thrown,
	);
	if (!error) throw new Error('expected the run to fail');
	return error;
}

/** The error's class, then its `cause` chain's (Node's own errors are not `instanceof Error` in jest). */
function classes(error: unknown): string[] {
	const names: string[] = [];
	for (let current = error; typeof current === 'object' && current !== null;) {
		names.push(current.constructor.name);
		current = (current as Error).cause;
	}
	return names;
}

describe("n8n-core's OAuth2 client credentials", () => {
	test('the first run fetches a token with HTTP Basic and the selected scopes (none by default), and stores it', async () => {
		const [items] = await runNode(node, {
			parameters: { path: '=/api/thing?name={{ $json.name }}' },
			input: [{ name: 'a' }, { name: 'b' }],
			credentials,
		});
		expect(items).toEqual([
			{ json: { id: 'thing', name: 'a' }, pairedItem: { item: 0 } },
			{ json: { id: 'thing', name: 'b' }, pairedItem: { item: 1 } },
		]);
		expect(server.tokenRequests).toEqual([
			{
				authorization: basic,
				// no scope selected (the default): none is asked for
				body: 'grant_type=client_credentials',
			},
		]);
		const token = credentialStore(credentials).oauthTokenData;
		expect(token).toEqual({
			access_token: expect.stringMatching(/^token-/),
			expires_in: 3600,
			token_type: 'Bearer',
			scope: '',
			n8n_expires_at: expect.stringMatching(/^\d+$/),
		});
		expect(server.apiRequests.map((request) => request.authorization)).toEqual([
			`Bearer ${token!.access_token}`,
			`Bearer ${token!.access_token}`,
		]);
	});

	test('a second run reuses the stored token, even past its expiry time (n8n renews on 401 only)', async () => {
		await runNode(node, { parameters: {}, credentials });
		const store = credentialStore(credentials);
		store.oauthTokenData = { ...store.oauthTokenData, n8n_expires_at: '0' };
		await runNode(node, { parameters: {}, credentials });
		expect(server.tokenRequests).toHaveLength(1);
		expect(server.apiRequests).toHaveLength(2);
	});

	test('a revoked token is replaced once and the request retried; a second 401 fails', async () => {
		await runNode(node, { parameters: {}, credentials });
		const first = credentialStore(credentials).oauthTokenData!.access_token;
		server.valid.clear();
		const [[item]] = await runNode(node, { parameters: {}, credentials });
		expect(item.json).toEqual({ id: 'thing', name: null });
		const second = credentialStore(credentials).oauthTokenData!.access_token;
		expect(second).not.toBe(first);
		expect(server.tokenRequests).toHaveLength(2);
		expect(server.apiRequests.map((request) => request.authorization)).toEqual([
			`Bearer ${first}`,
			`Bearer ${first}`,
			`Bearer ${second}`,
		]);

		server.apiRequests.length = 0;
		const error = await failure(
			runNode(node, { parameters: { path: '/api/always401' }, credentials }),
		);
		expect(error).toMatchObject({
			message: 'Authorization failed - please check your credentials',
			httpCode: '401',
		});
		expect(server.apiRequests).toHaveLength(2);
		expect(server.tokenRequests).toHaveLength(3);
	});

	test("the credential's defaults and $self expressions, resolved as n8n does", async () => {
		const run = (overrides: Partial<CredentialInput>) =>
			runNode(node, { parameters: {}, credentials: { ...credentials, ...overrides } });
		await run({ scopes: [] });
		expect(server.tokenRequests).toEqual([
			{ authorization: basic, body: 'grant_type=client_credentials' },
		]);

		// n8n's own message for an ExpressionError, from the credential, when a node reads it
		const plainHttp =
			'Base URL must start with https:// (plain http:// only for localhost, 127.0.0.1 or [::1]), got "http://example.com"';
		const fromRun = await failure(run({ baseUrl: 'http://example.com' }));
		expect(classes(fromRun)).toEqual(['ExpressionError']);
		expect(fromRun.message).toBe(`${plainHttp} [Error resolving credentials]`);
		const fromPoll = await failure(
			runPoll(node, {
				parameters: {},
				staticData: {},
				credentials: { ...credentials, baseUrl: 'http://example.com' },
			}),
		);
		expect(fromPoll.message).toBe(plainHttp);
	});
});

describe('the errors n8n-core throws, as our transport sees them', () => {
	const failing = (path: string, input: Partial<CredentialInput> = {}) =>
		failure(runNode(node, { parameters: { path }, credentials: { ...credentials, ...input } }));

	test('token endpoint 400 invalid_client (a wrong secret): no status, the OAuth2 error in cause.cause.body', async () => {
		const error = await failing('/api/thing', { clientSecret: 'wrong' });
		const reason =
			'Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).';
		expect(classes(error)).toEqual(['NodeApiError', 'OperationalError', 'AuthError']);
		expect(error).toMatchObject({
			message: `Failed to acquire OAuth2 access token: ${reason}`,
			description: reason,
			httpCode: null,
		});
		expect(error.cause).toMatchObject({
			message: `Failed to acquire OAuth2 access token: ${reason}`,
		});
		expect((error.cause as Error).cause).toMatchObject({
			message: reason,
			code: 'EAUTH',
			body: { error: 'invalid_client' },
		});
		expect(server.apiRequests).toHaveLength(0);
	});

	test('token endpoint 400 invalid_scope', async () => {
		const error = await failing('/api/thing', { scopes: ['Forbidden.Scope'] });
		const reason = 'The requested scope is invalid, unknown, or malformed.';
		expect(classes(error)).toEqual(['NodeApiError', 'OperationalError', 'AuthError']);
		expect(error).toMatchObject({
			message: `Failed to acquire OAuth2 access token: ${reason}`,
			description: reason,
			httpCode: null,
		});
		expect((error.cause as Error).cause).toMatchObject({ body: { error: 'invalid_scope' } });
	});

	test('connection refused, at the token endpoint and at the API (with a stored token)', async () => {
		const atToken = await failing('/api/thing', { baseUrl: 'http://127.0.0.1:9' });
		expect(classes(atToken)).toEqual(['NodeApiError', 'OperationalError', 'AxiosError', 'Error']);
		expect(atToken).toMatchObject({
			message: 'The service refused the connection - perhaps it is offline',
			description: 'connect ECONNREFUSED 127.0.0.1:9',
			httpCode: null,
		});
		expect(atToken.cause).toMatchObject({
			message: 'Failed to acquire OAuth2 access token: connect ECONNREFUSED 127.0.0.1:9',
		});
		expect((atToken.cause as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });

		const refused = { ...credentials, baseUrl: 'http://127.0.0.1:9' };
		credentialStore(refused).oauthTokenData = { access_token: 'stored', token_type: 'Bearer' };
		const atApi = await failure(runNode(node, { parameters: {}, credentials: refused }));
		expect(classes(atApi)).toEqual(['NodeApiError', 'AxiosError', 'Error']);
		expect(atApi).toMatchObject({
			message: 'The service refused the connection - perhaps it is offline',
			description: undefined,
			httpCode: 'ECONNREFUSED',
		});
		expect(atApi.cause).toMatchObject({ code: 'ECONNREFUSED' });
		expect(atApi.cause).not.toHaveProperty('response');
	});

	test('API 404 with a problem-details body: status, headers and parsed body on cause.response', async () => {
		const error = await failing('/api/nope');
		const body = {
			type: 'about:blank',
			title: 'Not Found',
			status: 404,
			detail: 'Not Found (test)',
		};
		expect(classes(error)).toEqual(['NodeApiError', 'AxiosError']);
		expect(error).toMatchObject({
			message: 'The resource you are requesting could not be found',
			description: 'Request failed with status code 404',
			httpCode: '404',
			context: { data: body },
		});
		expect(error.cause).toMatchObject({
			message: 'Request failed with status code 404',
			code: 'ERR_BAD_REQUEST',
			status: 404,
			response: {
				status: 404,
				headers: { 'content-type': 'application/problem+json' },
				data: body,
			},
		});
	});

	test('API 429 with Retry-After: 2 (header names lowercased)', async () => {
		const error = await failing('/api/limited');
		expect(classes(error)).toEqual(['NodeApiError', 'AxiosError']);
		expect(error).toMatchObject({
			message: 'The service is receiving too many requests from you',
			description: 'Request failed with status code 429',
			httpCode: '429',
		});
		expect(error.cause).toMatchObject({
			status: 429,
			response: { status: 429, headers: { 'retry-after': '2' } },
		});
	});

	test('API 503', async () => {
		const error = await failing('/api/down');
		expect(classes(error)).toEqual(['NodeApiError', 'AxiosError']);
		expect(error).toMatchObject({
			message:
				'Service unavailable - try again later or consider setting this node to retry automatically (in the node settings)',
			description: 'Request failed with status code 503',
			httpCode: '503',
		});
		expect(error.cause).toMatchObject({ code: 'ERR_BAD_RESPONSE', response: { status: 503 } });
	});

	test('socket reset', async () => {
		const error = await failing('/api/reset');
		expect(classes(error)).toEqual(['NodeApiError', 'AxiosError', 'Error']);
		expect(error).toMatchObject({
			message:
				'The connection to the server was closed unexpectedly, perhaps it is offline. You can retry the request immediately or wait and retry later.',
			description: undefined,
			httpCode: 'ECONNRESET',
		});
		expect(error.cause).toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' });
	});

	test('with Continue On Fail the error becomes the item', async () => {
		const [items] = await runNode(node, {
			parameters: { path: '/api/nope' },
			credentials,
			continueOnFail: true,
		});
		expect(items).toEqual([
			{
				json: { error: 'The resource you are requesting could not be found' },
				pairedItem: { item: 0 },
			},
		]);
	});
});

describe('request options', () => {
	test('returnFullResponse gives the status and the headers', async () => {
		const [[item]] = await runNode(node, {
			parameters: { options: { returnFullResponse: true } },
			credentials,
		});
		expect(item.json).toMatchObject({
			body: { id: 'thing', name: null },
			headers: { 'content-type': 'application/json', 'x-trace-id': 'trace-1' },
			statusCode: 200,
			statusMessage: 'OK',
		});
	});

	test('ignoreHttpStatusErrors turns off the renewal on 401: the 401 body is the answer', async () => {
		await runNode(node, { parameters: {}, credentials });
		server.valid.clear();
		const [[item]] = await runNode(node, {
			parameters: { options: { ignoreHttpStatusErrors: true } },
			credentials,
		});
		expect(item.json).toMatchObject({ title: 'Unauthorized', status: 401 });
		expect(server.tokenRequests).toHaveLength(1);
	});
});

describe('polls and lists', () => {
	test('a poll changes the static data in place and reads the poll budget', async () => {
		const staticData: IDataObject = {};
		const poll = (mode: 'trigger' | 'manual') =>
			runPoll(node, { parameters: {}, staticData, mode, credentials, budgetMs: 1234 });
		expect(await poll('trigger')).toEqual([
			[{ json: { id: 'thing', name: null, budgetMs: 1234, mode: 'trigger', typeVersion: 2 } }],
		]);
		expect(await poll('manual')).toEqual([
			[{ json: { id: 'thing', name: null, budgetMs: 1234, mode: 'manual', typeVersion: 2 } }],
		]);
		expect(staticData).toEqual({ polls: 2 });
		expect(server.tokenRequests).toHaveLength(1);
		const [[older]] = (await runPoll(node, {
			parameters: {},
			staticData,
			credentials,
			typeVersion: 1,
		}))!;
		expect(older.json.typeVersion).toBe(1);
	});

	test('loadOptions sees the parameter defaults; listSearch gets the filter', async () => {
		expect(await runLoadOptions(node, 'things', { credentials })).toEqual([
			{ name: 'thing', value: 'thing' },
		]);
		expect(await runListSearch(node, 'searchThings', { credentials, filter: 'abc' })).toEqual({
			results: [{ name: 'abc', value: 'thing' }],
			paginationToken: 'page-2',
		});
		expect(server.tokenRequests).toHaveLength(1);
	});
});
