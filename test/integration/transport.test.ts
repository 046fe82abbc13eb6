import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { normalizeBaseUrl, onBaseOrigin } from '../../nodes/shared/transport';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';
import { newAsset } from '../sandbox/support/harness';

const node = new StockroomAsset();
const listAll = { operation: 'getAll', returnAll: true } as const;

describe('transport: tokens, retries and errors through n8n-core', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await createSandbox({
			clients: [
				{ id: 'reader', secret: 'reader-secret', scopes: ['Users.Read', 'Contracts.Read'] },
			],
		});
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});
	const tokenRequests = () => sandbox.journal().filter((entry) => entry.path === '/connect/token');
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));

	test('n8n fetches one token, keeps it in the credential and reuses it', async () => {
		const credential = sandboxCredential(sandbox);
		await runNode(node, { parameters: listAll, credential });
		await runNode(node, { parameters: listAll, credential });
		expect(tokenRequests()).toHaveLength(1);
		// by default no scope is asked for: the service grants the app every scope it has
		expect(tokenRequests()[0].body).toBe('grant_type=client_credentials');
		expect(credential.oauthTokenData).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
	});

	test('many writes on a credential with no token yet fetch one token, not one per worker', async () => {
		const credential = sandboxCredential(sandbox);
		const input = Array.from({ length: 12 }, (_, i) => newAsset(`token-once-${i}`) as IDataObject);
		const [items] = await runNode(node, {
			parameters: { operation: 'upsert', inputMode: 'json' },
			credential,
			input,
		});
		expect(items).toHaveLength(12);
		expect(tokenRequests()).toHaveLength(1);
	});

	test('scopes selected in the credential are asked for, exactly those', async () => {
		const credential = sandboxCredential(sandbox, { scopes: ['Assets.Read', 'Users.Read'] });
		await runNode(node, { parameters: listAll, credential });
		expect(tokenRequests()[0].body).toBe(
			'grant_type=client_credentials&scope=Assets.Read%20Users.Read',
		);
	});

	test('a token the service no longer accepts is replaced once (n8n retries on 401)', async () => {
		const credential = sandboxCredential(sandbox);
		await runNode(node, { parameters: listAll, credential });
		credential.oauthTokenData = { ...credential.oauthTokenData, access_token: 'revoked-token' };
		const [items] = await runNode(node, { parameters: listAll, credential });
		expect(items).toHaveLength(sandbox.store.assets.size);
		expect(
			sandbox.journal().map((entry) => `${entry.method} ${entry.path} ${entry.status}`),
		).toEqual([
			'POST /connect/token 200',
			'GET /api/assets/v1 200',
			'GET /api/assets/v1 401',
			'POST /connect/token 200',
			'GET /api/assets/v1 200',
		]);
	});

	test('a wrong secret, a scope the app lacks and a missing scope each say what to fix', async () => {
		const wrongSecret = await failureOf(
			runNode(node, {
				parameters: listAll,
				credential: sandboxCredential(sandbox, { clientSecret: 'nope' }),
			}),
		);
		expect(wrongSecret.message).toBe(
			'Could not list assets: the service rejected the client ID or client secret (invalid_client) [item 0]',
		);
		expect(wrongSecret.description).toBe(
			'Open the Stockroom credential and check Client ID and Client Secret.',
		);

		const reader = { clientId: 'reader', clientSecret: 'reader-secret' };
		const wrongScope = await failureOf(
			runNode(node, {
				parameters: listAll,
				credential: sandboxCredential(sandbox, { ...reader, scopes: ['Assets.Read'] }),
			}),
		);
		expect(wrongScope.message).toBe(
			'Could not list assets: the service refused the requested scopes (invalid_scope) [item 0]',
		);

		const missingScope = await failureOf(
			runNode(node, {
				parameters: listAll,
				credential: sandboxCredential(sandbox, { ...reader, scopes: [] }),
			}),
		);
		expect(missingScope.message).toBe(
			'Could not list assets: the credential lacks the Assets.Read scope (HTTP 403) [item 0]',
		);
		expect(missingScope.description).toMatch(
			/^Grant Assets.Read to the client app and select it in the credential's Scopes\./,
		);
		expect(missingScope.httpCode).toBe('403');
	});

	test('a wrong base URL and a non-https base URL', async () => {
		const refused = await failureOf(
			runNode(node, {
				parameters: listAll,
				credential: sandboxCredential(sandbox, { baseUrl: 'http://127.0.0.1:9' }),
			}),
		);
		expect(refused.message).toBe(
			'Could not list assets: the connection was refused at http://127.0.0.1:9 [item 0]',
		);
		const plainHttp = await failureOf(
			runNode(node, {
				parameters: listAll,
				credential: sandboxCredential(sandbox, { baseUrl: 'http://stockroom.example.com' }),
			}),
		);
		expect(plainHttp.message).toContain(
			'Base URL must start with https:// (plain http:// only for localhost, 127.0.0.1 or [::1]), got "http://stockroom.example.com"',
		);
	});

	test('502, 503, 504 and dropped connections are retried; a lasting fault fails with the attempts counted', async () => {
		const credential = sandboxCredential(sandbox);
		sandbox.failNext(1, '502');
		sandbox.failNext(1, '503');
		sandbox.failNext(1, 'reset');
		const [items] = await runNode(node, { parameters: listAll, credential });
		expect(items).toHaveLength(sandbox.store.assets.size);

		sandbox.setFaults('503:1');
		const lasting = await failureOf(
			runNode(node, {
				parameters: { ...listAll, options: { maxAttempts: 2, maxRetryWaitSeconds: 10 } },
				credential,
			}),
		);
		expect(lasting.message).toBe(
			'Could not list assets: the service answered HTTP 503 (An error has occurred) after 2 attempts [item 0]',
		);
		sandbox.setFaults('500:1');
		sandbox.resetStats();
		const serverFault = await failureOf(runNode(node, { parameters: listAll, credential }));
		expect(serverFault.message).toBe(
			'Could not list assets: the service answered HTTP 500 (An error has occurred) [item 0]',
		);
		// a 500 is not retried: the request might have been carried out
		expect(sandbox.journal().filter((entry) => entry.path.startsWith('/api/'))).toHaveLength(1);
	}, 30_000);

	test('a request the service never answers times out and is tried again; one that keeps hanging fails saying so', async () => {
		const credential = sandboxCredential(sandbox);
		const [target] = sandbox.store.assets.all();
		const get = (options: IDataObject) =>
			runNode(node, {
				parameters: {
					operation: 'get',
					asset: { __rl: true, mode: 'id', value: target.id },
					options: options as never,
				},
				credential,
			});
		await runNode(node, { parameters: listAll, credential }); // the token first
		sandbox.resetStats();
		sandbox.failNext(1, 'hang');
		const [[found]] = await get({ timeoutSeconds: 1 });
		expect(found.json.id).toBe(target.id);
		expect(apiCalls().map((call) => call.path)).toEqual([
			`/api/assets/v1/${target.id}`,
			`/api/assets/v1/${target.id}`,
		]);

		sandbox.setFaults('hang:1');
		const hanging = await failureOf(get({ timeoutSeconds: 1, maxAttempts: 2 }));
		expect(hanging.message).toBe(
			`Could not get asset ${target.id}: the service did not answer within 1 s at ${sandbox.url} [item 0]`,
		);
		expect(hanging.description).toMatch(/Tried 2 times\./);
	}, 30_000);

	test('a DELETE whose answer was lost, then "not found" when tried again, is reported as done', async () => {
		const credential = sandboxCredential(sandbox);
		const [, target] = sandbox.store.assets.all();
		sandbox.failNext(1, 'cut');
		const [[deleted]] = await runNode(node, {
			parameters: { operation: 'delete', asset: { __rl: true, mode: 'id', value: target.id } },
			credential,
		});
		expect(deleted.json).toEqual({ id: target.id, deleted: true });
		expect(sandbox.store.assets.get(target.id)).toBeUndefined();
		expect(
			apiCalls()
				.filter((call) => call.method === 'DELETE')
				.map((call) => call.status),
		).toEqual([204, 404]);
	});

	test('a Retry-After longer than the retry budget fails at once with advice', async () => {
		const credential = sandboxCredential(sandbox);
		sandbox.setFaults('429:1');
		const limited = await failureOf(
			runNode(node, {
				parameters: { ...listAll, options: { maxRetryWaitSeconds: 0 } },
				credential,
			}),
		);
		expect(limited.message).toBe(
			'Could not list assets: the service is still rate limiting after 1 attempt (HTTP 429) [item 0]',
		);
		expect(limited.description).toMatch(/Max Retry Wait/);
	});

	test('no secret or token ever appears in an error', async () => {
		const credential = sandboxCredential(sandbox);
		await runNode(node, { parameters: listAll, credential });
		const token = String((credential.oauthTokenData as IDataObject).access_token);
		sandbox.setFaults('503:1');
		const error = await failureOf(
			runNode(node, { parameters: { ...listAll, options: { maxAttempts: 1 } }, credential }),
		);
		const everything = JSON.stringify({
			...error,
			message: error.message,
			description: error.description,
			stack: error.stack,
		});
		expect(everything).not.toContain(token);
		expect(everything).not.toContain(sandbox.client.secret);
	});
});

describe('the token endpoint failing with secrets in its answer', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 10 });
	});
	afterAll(() => sandbox.close());

	test.each(['echo500', 'quote400'] as const)(
		'%s: the error says what failed and shows no secret or token',
		async (kind) => {
			const credential = sandboxCredential(sandbox);
			sandbox.failTokenNext(kind);
			const error = await failureOf(runNode(node, { parameters: listAll, credential }));
			const shown = JSON.stringify({
				...error,
				message: error.message,
				description: error.description,
				stack: error.stack,
			});
			expect(shown).not.toContain(sandbox.client.secret);
			expect(shown).not.toMatch(/access_token"?\s*[:=]\s*"?[\w.-]{8}/);
			expect(shown).not.toMatch(/Bearer [\w.-]{8}/);
			expect(shown).not.toMatch(/Basic [\w+/=]{8}/);
			expect(error.message).toMatch(/^Could not list assets: /);
		},
	);
});

describe('Return All asks for the next page while it reads the current one', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		// uncompressed pages of 100 on an 8 Mbit/s link take about 100 ms each to arrive, well over
		// what asking for a page costs the client, so a page asked for ahead arrives while one is read
		sandbox = await createSandbox({
			records: 1_050,
			network: { bandwidthMbit: 8, compression: false },
		});
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.setFaults('');
		sandbox.resetStats();
	});
	// pages of 100 (the default is the service's largest, 1,000), so a walk has several
	const listAllByHundreds = { ...listAll, options: { pageSize: 100 } };
	const listRequests = () => sandbox.stats().requests['GET /api/assets/v1'] ?? 0;
	const idsOf = (items: Array<{ json: IDataObject }>) => items.map(({ json }) => json.id);
	const storedIds = () => sandbox.store.assets.all().map(({ id }) => id);

	test('every record once and in order; one page ahead at most, one request per page', async () => {
		const pages = Math.ceil(sandbox.store.assets.size / 100);
		const [items] = await runNode(node, {
			parameters: listAllByHundreds,
			credential: sandboxCredential(sandbox),
		});
		expect(idsOf(items)).toEqual(storedIds());
		expect(listRequests()).toBe(pages);
		// the page being read and the one asked for ahead of it; never a third
		expect(sandbox.stats().maxInFlight).toBe(2);
	});

	test('a page cut mid-body is asked for again, after the page fetched ahead is dropped', async () => {
		sandbox.failNext(1, 'cut', 2);
		sandbox.failNext(1, '503', 1);
		sandbox.failNext(1, 'reset', 2);
		sandbox.failNext(1, 'cut', 1);
		const [items] = await runNode(node, {
			parameters: listAllByHundreds,
			credential: sandboxCredential(sandbox),
		});
		expect(idsOf(items)).toEqual(storedIds());
		expect(sandbox.stats().maxInFlight).toBeLessThanOrEqual(2);
	});

	test.each([
		[100, 1],
		[250, 3],
		[1_000, 10],
	])('a limit of %i reads %i pages, none beyond', async (limit, pages) => {
		const [items] = await runNode(node, {
			parameters: { operation: 'getAll', returnAll: false, limit, options: { pageSize: 100 } },
			credential: sandboxCredential(sandbox),
		});
		expect(idsOf(items)).toEqual(storedIds().slice(0, limit));
		expect(listRequests()).toBe(pages);
	});
});

describe('base URLs', () => {
	test.each([
		['https://api.example.com/', 'https://api.example.com'],
		['  https://api.example.com/eu//  ', 'https://api.example.com/eu'],
		['http://localhost:8787', 'http://localhost:8787'],
		['http://127.0.0.1', 'http://127.0.0.1'],
		['http://[::1]:8080/', 'http://[::1]:8080'],
	])('%j is accepted as %j', (input, expected) => expect(normalizeBaseUrl(input)).toBe(expected));

	test.each(['http://api.example.com', 'ftp://x', 'api.example.com', ''])(
		'%j is refused',
		(input) => expect(() => normalizeBaseUrl(input)).toThrow(/Base URL must/),
	);

	test("next links are followed on the credential's own origin", () => {
		expect(
			onBaseOrigin('http://internal:8080/api/assets/v1?after=x', 'https://api.example.com'),
		).toBe('https://api.example.com/api/assets/v1?after=x');
		expect(
			onBaseOrigin('https://api.example.com/api/assets/v1?after=x', 'https://api.example.com/eu'),
		).toBe('https://api.example.com/api/assets/v1?after=x');
	});
});
