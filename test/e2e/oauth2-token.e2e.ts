import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	freePort,
	N8N_BEFORE_1_100,
	N8N_MAJOR,
	NODE,
	type N8nHome,
	type N8nServer,
} from '../../scripts/n8n';

const READER = { id: 'stockroom-reader', secret: 'reader-secret', scopes: ['Assets.Read'] };

/** How n8n words a credential test whose token request failed (n8n 1.x adds no prefix). */
const tokenFailure = (text: string) =>
	N8N_MAJOR >= 2 ? `Failed to acquire OAuth2 access token: ${text}` : text;

/**
 * n8n's own words for a failed credential test where n8n before 1.100 (the 1.85 floor) has
 * others: the error code alone, the content type it could not read, or (for a Base URL our
 * credential refuses) the missing token URL, its expression's error not shown.
 */
const beforeN8n1100 = (text: string, floorText: string) => (N8N_BEFORE_1_100 ? floorText : text);

describe('the credential and the editor’s lists in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let workflowId: string;
	const journal = (path: string) => sandbox.journal().filter((entry) => entry.path === path);

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 500, clients: [READER] });
		home = await createN8nHome();
		const credential = { id: 'stockroomTokenE2e', name: 'Stockroom' };
		await home.importCredential({
			...credential,
			...sandboxCredentialInput(sandbox),
			baseUrl: `${sandbox.url}/`,
		});
		// n8n's own HTTP Request node, authenticated with our credential type
		workflowId = await home.importWorkflow(
			buildWorkflow('List users with the Stockroom credential', credential, [
				[
					{
						name: 'List users',
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: 4.2,
						parameters: {
							url: `${sandbox.url}/api/scim/v2/Users`,
							authentication: 'predefinedCredentialType',
							nodeCredentialType: 'stockroomOAuth2Api',
							options: {},
						},
						credentials: { stockroomOAuth2Api: credential },
					},
				],
			]),
		);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('n8n’s OAuth2 code gets a token (HTTP Basic, no scope asked for by default), then calls the API', async () => {
		const run = await home.executeWorkflow(workflowId);

		expect(run.error).toBeUndefined();
		expect(run.status).toBe('success');
		expect(run.outputs['List users']).toHaveLength(1);
		const [page] = run.outputs['List users'];
		const users = sandbox.store.users.all();
		expect(page).toMatchObject({ totalResults: users.length, startIndex: 1, itemsPerPage: 100 });
		expect(page.Resources).toEqual(users.slice(0, 100));

		const tokenCalls = journal('/connect/token');
		expect(tokenCalls).toHaveLength(1);
		const form = new URLSearchParams(tokenCalls[0].body as string);
		expect(form.get('grant_type')).toBe('client_credentials');
		// none selected (the default): the service grants the app every scope it has (n8n 2.x sends
		// no `scope`, n8n 1.x an empty one)
		expect(form.get('scope') ?? '').toBe('');
		// the sandbox takes the client as HTTP Basic or as form fields: with none in the form and a
		// token issued, it came as HTTP Basic
		expect(form.has('client_id')).toBe(false);
		expect(form.has('client_secret')).toBe(false);
		expect(tokenCalls[0].status).toBe(200);
		expect(journal('/api/scim/v2/Users').map((call) => call.status)).toEqual([200]);
	});

	test('stores the token in the credential and reuses it on the next run', async () => {
		sandbox.resetStats();

		const run = await home.executeWorkflow(workflowId);

		expect(run.status).toBe('success');
		expect(sandbox.journal().map((call) => `${call.method} ${call.path}`)).toEqual([
			'GET /api/scim/v2/Users',
		]);
	});

	describe('in the editor: n8n’s REST API', () => {
		let server: N8nServer;
		/** A saved credential for the editor's lists. */
		let credentials: Record<string, { id: string; name: string }>;
		const valid = () => ({
			baseUrl: sandbox.url,
			clientId: sandbox.client.id,
			clientSecret: sandbox.client.secret,
		});
		// n8n stores the token it obtains in the credential, so only a saved credential can pass
		const testWith = async (name: string, data: Record<string, unknown>) => {
			const id = await server.rest.createCredential({ name, data });
			return await server.rest.testCredential({ id, name, data });
		};

		beforeAll(async () => {
			server = await home.start();
			const id = await server.rest.createCredential({ name: 'For lists', data: valid() });
			credentials = { stockroomOAuth2Api: { id, name: 'For lists' } };
		});

		afterAll(async () => {
			await server?.stop();
		});

		beforeEach(() => sandbox.resetStats());

		test('OK with the right client, with or without a trailing slash on the base URL', async () => {
			const ok = { status: 'OK', message: 'Connection successful!' };
			expect(await testWith('Valid', valid())).toEqual(ok);
			expect(
				await testWith('Valid with slash', { ...valid(), baseUrl: `${sandbox.url}/` }),
			).toEqual(ok);
			// each test: n8n's token request, then the test call, to the token endpoint as well
			expect(journal('/connect/token').map((call) => call.status)).toEqual([200, 200, 200, 200]);
			expect(journal('/api/scim/v2/Users')).toEqual([]);
		});

		test('a wrong secret', async () => {
			expect(
				await testWith('Wrong secret', { ...valid(), clientSecret: 'not-the-secret' }),
			).toEqual({
				status: 'Error',
				message: beforeN8n1100(
					tokenFailure(
						'Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).',
					),
					'EAUTH',
				),
			});
			expect(journal('/connect/token').map((call) => call.status)).toEqual([400]);
		});

		test('an app granted only Assets.Read passes with no scope or its own selected; a scope it lacks fails', async () => {
			const reader = { ...valid(), clientId: READER.id, clientSecret: READER.secret };
			const ok = { status: 'OK', message: 'Connection successful!' };
			expect(await testWith('Reader, no scopes', { ...reader, scopes: [] })).toEqual(ok);
			expect(await testWith('Reader, its scope', { ...reader, scopes: ['Assets.Read'] })).toEqual(
				ok,
			);
			expect(
				await testWith('Reader, more scopes', { ...reader, scopes: ['Assets.Read', 'Users.Read'] }),
			).toEqual({
				status: 'Error',
				message: beforeN8n1100(
					tokenFailure('The requested scope is invalid, unknown, or malformed.'),
					'EAUTH',
				),
			});
			// the test never needed an API scope
			expect(journal('/api/scim/v2/Users')).toEqual([]);
		});

		test('a base URL where nothing listens', async () => {
			const closed = `http://127.0.0.1:${await freePort()}`;
			expect(await testWith('Refused', { ...valid(), baseUrl: closed })).toEqual({
				status: 'Error',
				message: beforeN8n1100(
					'The service refused the connection - perhaps it is offline',
					'ECONNREFUSED',
				),
			});
		});

		test('a base URL with a wrong path', async () => {
			expect(await testWith('Wrong path', { ...valid(), baseUrl: `${sandbox.url}/v2` })).toEqual({
				status: 'Error',
				// n8n 1.x words a failed token request by its status alone
				message: beforeN8n1100(
					N8N_MAJOR >= 2
						? tokenFailure('HTTP status 404')
						: 'The resource you are requesting could not be found',
					'Unsupported content type: application/problem+json; charset=utf-8',
				),
			});
		});

		test('a plain http base URL that is not a local sandbox, refused before any request', async () => {
			expect(
				await testWith('Not https', { ...valid(), baseUrl: 'http://stockroom.example.com' }),
			).toEqual({
				status: 'Error',
				message: beforeN8n1100(
					'Base URL must start with https:// (plain http:// only for localhost, 127.0.0.1 or [::1]), got "http://stockroom.example.com"',
					'Expected "accessTokenUri" to exist',
				),
			});
			expect(sandbox.stats().totalRequests).toBe(0);
		});

		/** What the editor asks for to fill a list (options or a resource locator's list). */
		const list = <T>(kind: 'options' | 'resource-locator-results', request: IDataObject) =>
			server.rest.request<T>('POST', `/rest/dynamic-node-parameters/${kind}`, {
				credentials,
				...request,
			});
		type Options = Array<{ name: string; value: string }>;
		type Results = { results: Options; paginationToken?: string };

		test('the custom field and filter field pickers load from the service', async () => {
			const asset = { name: NODE.asset, version: 1 };
			const custom = await list<Options>('options', {
				nodeTypeAndVersion: asset,
				path: 'customFieldsUi.values.name',
				methodName: 'getAssetCustomFields',
				currentNodeParameters: { operation: 'upsert' },
			});
			const definitions = sandbox.store.customFieldDefinitions;
			expect(custom.map((option) => option.value).sort()).toEqual(
				definitions.map((definition) => definition.lookupKey).sort(),
			);
			expect(custom.find((option) => option.value === 'memoryGb')).toEqual({
				name: 'Memory (GB)',
				value: 'memoryGb',
				description: 'Number',
			});
			for (const nodeTypeAndVersion of [asset, { name: NODE.trigger, version: 1 }]) {
				const fields = await list<Options>('options', {
					nodeTypeAndVersion,
					path: 'conditions.condition.field',
					methodName: 'getAssetFilterFields',
					currentNodeParameters: { operation: 'getAll', resource: 'assets' },
				});
				const values = fields.map((option) => option.value);
				expect(values).toEqual(
					expect.arrayContaining(['status', 'lastSyncDtm', 'assignedTo.email']),
				);
				expect(values).toEqual(
					expect.arrayContaining(
						definitions.map((definition) => `customFieldValues.${definition.lookupKey}`),
					),
				);
			}
		});

		test('"From List" searches assets and pages through them', async () => {
			const search = (paginationToken?: string) =>
				list<Results>('resource-locator-results', {
					nodeTypeAndVersion: { name: NODE.asset, version: 1 },
					path: 'asset',
					methodName: 'searchAssets',
					currentNodeParameters: { operation: 'get' },
					filter: 'DELL',
					...(paginationToken ? { paginationToken } : {}),
				});
			// what the service itself answers to the same search, two pages of 50
			const service = await fetch(`${sandbox.url}/api/assets/v1?q=DELL&limit=100`, {
				headers: { authorization: `Bearer ${sandbox.token()}` },
			});
			const matching = ((await service.json()) as { results: IDataObject[] }).results;
			expect(matching).toHaveLength(100);
			const first = await search();
			expect(first.results).toHaveLength(50);
			expect(first.results[0]).toEqual({
				name: `${String(matching[0].deviceName)} (${String(matching[0].externalId)})`,
				value: matching[0].id,
			});
			const second = await search(first.paginationToken);
			expect([...first.results, ...second.results].map((result) => result.value)).toEqual(
				matching.map((record) => record.id),
			);
		});

		test('"From List" of contracts and of users', async () => {
			const contracts = await list<Results>('resource-locator-results', {
				nodeTypeAndVersion: { name: NODE.contract, version: 1 },
				path: 'contract',
				methodName: 'searchContracts',
				currentNodeParameters: { operation: 'get' },
			});
			expect(contracts.results.map((result) => result.value)).toEqual(
				sandbox.store.contracts
					.all()
					.slice(0, 50)
					.map((record) => record.id),
			);
			const users = sandbox.store.users.all();
			const first = await list<Results>('resource-locator-results', {
				nodeTypeAndVersion: { name: NODE.user, version: 1 },
				path: 'user',
				methodName: 'searchUsers',
				currentNodeParameters: { operation: 'get' },
			});
			expect(first.results.map((result) => result.value)).toEqual(
				users.slice(0, 50).map((record) => record.id),
			);
			expect(first.paginationToken).toBe('51');
		});
	});
});
