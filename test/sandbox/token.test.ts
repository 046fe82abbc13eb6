import { ALL_SCOPES } from '../../sandbox/auth';
import { startHarness, type Harness } from './support/harness';

const basic = (id: string, secret: string) =>
	`Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

describe('token endpoint', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({
			clients: [{ id: 'reader', secret: 'reader secret', scopes: ['Assets.Read'] }],
		});
	});
	afterAll(() => h.sandbox.close());

	const requestToken = (body: Record<string, string>, authorization?: string) =>
		h.anonymous.post('/connect/token', form(body), {
			headers: { ...FORM, ...(authorization ? { Authorization: authorization } : {}) },
		});

	test('HTTP Basic credentials and no scope: every scope of the client', async () => {
		const response = await requestToken(
			{ grant_type: 'client_credentials' },
			basic('stockroom-demo', 'stockroom-demo-secret'),
		);
		expect(response.status).toBe(200);
		expect(response.headers['cache-control']).toBe('no-store');
		expect(response.data).toEqual({
			access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
			expires_in: 3600,
			token_type: 'Bearer',
			scope: ALL_SCOPES.join(' '),
		});
	});

	test('credentials in the form body, one scope requested', async () => {
		const response = await requestToken({
			grant_type: 'client_credentials',
			client_id: 'stockroom-demo',
			client_secret: 'stockroom-demo-secret',
			scope: 'Users.Read',
		});
		expect(response.status).toBe(200);
		expect(response.data.scope).toBe('Users.Read');
		const users = await h.anonymous.get('/api/scim/v2/Users', {
			headers: { Authorization: `Bearer ${response.data.access_token}` },
		});
		expect(users.status).toBe(200);
	});

	test('space-separated scopes are granted as requested', async () => {
		const response = await requestToken(
			{ grant_type: 'client_credentials', scope: 'Assets.Read Contracts.Write' },
			basic('stockroom-demo', 'stockroom-demo-secret'),
		);
		expect(response.data.scope).toBe('Assets.Read Contracts.Write');
	});

	test('tokens are random and distinct', async () => {
		const tokens = await Promise.all(
			[1, 2, 3].map(() =>
				requestToken(
					{ grant_type: 'client_credentials' },
					basic('stockroom-demo', 'stockroom-demo-secret'),
				),
			),
		);
		expect(new Set(tokens.map((response) => response.data.access_token)).size).toBe(3);
	});

	test.each([
		['a wrong secret', basic('stockroom-demo', 'nope'), {}],
		['an unknown client', basic('someone', 'stockroom-demo-secret'), {}],
		['no credentials at all', undefined, {}],
		['a wrong secret in the body', undefined, { client_id: 'stockroom-demo', client_secret: 'x' }],
		['Basic without a colon', `Basic ${Buffer.from('stockroom-demo').toString('base64')}`, {}],
	])('%s: 400 invalid_client', async (_name, authorization, fields) => {
		const response = await requestToken(
			{ grant_type: 'client_credentials', ...fields },
			authorization,
		);
		expect(response.status).toBe(400);
		expect(response.data).toEqual({ error: 'invalid_client' });
	});

	test('an unknown scope: 400 invalid_scope', async () => {
		const response = await requestToken(
			{ grant_type: 'client_credentials', scope: 'Assets.Read Assets.Everything' },
			basic('stockroom-demo', 'stockroom-demo-secret'),
		);
		expect(response.status).toBe(400);
		expect(response.data).toEqual({ error: 'invalid_scope' });
	});

	test('scopes are case-sensitive', async () => {
		const response = await requestToken(
			{ grant_type: 'client_credentials', scope: 'assets.read' },
			basic('stockroom-demo', 'stockroom-demo-secret'),
		);
		expect(response.data).toEqual({ error: 'invalid_scope' });
	});

	test('a scope the client was not granted: 400 invalid_scope', async () => {
		const response = await requestToken(
			{ grant_type: 'client_credentials', scope: 'Assets.Write' },
			basic('reader', 'reader secret'),
		);
		expect(response.status).toBe(400);
		expect(response.data).toEqual({ error: 'invalid_scope' });
		const own = await requestToken(
			{ grant_type: 'client_credentials' },
			basic('reader', 'reader secret'),
		);
		expect(own.data.scope).toBe('Assets.Read');
	});

	test('form-encoded Basic credentials (RFC 6749 §2.3.1) are accepted too', async () => {
		const response = await requestToken(
			{ grant_type: 'client_credentials' },
			basic('reader', 'reader+secret'),
		);
		expect(response.status).toBe(200);
	});

	test.each([['password'], ['']])(
		'grant_type %j: 400 unsupported_grant_type',
		async (grantType) => {
			const response = await requestToken(
				{ grant_type: grantType },
				basic('stockroom-demo', 'stockroom-demo-secret'),
			);
			expect(response.status).toBe(400);
			expect(response.data).toEqual({ error: 'unsupported_grant_type' });
		},
	);

	test('a JSON body: 400 invalid_request', async () => {
		const response = await h.anonymous.post(
			'/connect/token',
			{ grant_type: 'client_credentials' },
			{ headers: { Authorization: basic('stockroom-demo', 'stockroom-demo-secret') } },
		);
		expect(response.status).toBe(400);
		expect(response.data).toEqual({ error: 'invalid_request' });
	});

	test('GET on the token endpoint: 405 with Allow', async () => {
		const response = await h.anonymous.get('/connect/token');
		expect(response.status).toBe(405);
		expect(response.headers.allow).toBe('POST');
	});
});

describe('token expiry', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({ tokenTtl: 1 });
	});
	afterAll(() => h.sandbox.close());

	test('expires_in is the configured lifetime, and the token stops working after it', async () => {
		const response = await h.anonymous.post(
			'/connect/token',
			form({
				grant_type: 'client_credentials',
				client_id: 'stockroom-demo',
				client_secret: 'stockroom-demo-secret',
			}),
		);
		expect(response.data.expires_in).toBe(1);
		const headers = { Authorization: `Bearer ${response.data.access_token}` };
		expect((await h.anonymous.get('/api/assets/v1', { headers })).status).toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const expired = await h.anonymous.get('/api/assets/v1', { headers });
		expect(expired.status).toBe(401);
		expect(expired.headers['www-authenticate']).toMatch(
			/^Bearer error="invalid_token", error_description="The token expired at '.+'"$/,
		);
	});
});

describe('expiring tokens on demand (sandbox.expireTokens)', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	test('tokens issued before stop working with the expiry 401; a token issued after works', async () => {
		const before = { Authorization: `Bearer ${h.sandbox.token()}` };
		expect((await h.anonymous.get('/api/assets/v1', { headers: before })).status).toBe(200);
		h.sandbox.expireTokens();
		const expired = await h.anonymous.get('/api/assets/v1', { headers: before });
		expect(expired.status).toBe(401);
		expect(expired.headers['www-authenticate']).toMatch(/error_description="The token expired at/);
		const after = { Authorization: `Bearer ${h.sandbox.token()}` };
		expect((await h.anonymous.get('/api/assets/v1', { headers: after })).status).toBe(200);
	});

	/**
	 * The statuses of `calls` API calls after `expireTokens(...afterCalls)`, as a client that takes
	 * a new token on each 401 meets them.
	 */
	async function statusesAfterExpiry(afterCalls: number[], calls: number): Promise<number[]> {
		const statuses: number[] = [];
		let headers = { Authorization: `Bearer ${h.sandbox.token()}` };
		h.sandbox.expireTokens(...afterCalls);
		for (let call = 0; call < calls; call++) {
			const status = (await h.anonymous.get('/api/assets/v1', { headers })).status;
			statuses.push(status);
			if (status === 401) headers = { Authorization: `Bearer ${h.sandbox.token()}` };
		}
		return statuses;
	}

	test('tokens that run out mid-run: every token expires once so many more API calls have come in, at each count given', async () => {
		// calls 3 and 5 meet the expiry; the token issued after call 3 is expired at call 5
		expect(await statusesAfterExpiry([2, 4], 6)).toEqual([200, 200, 401, 200, 401, 200]);
	});

	test('a count of 0 is now: the next call meets the expiry, and the later counts still come', async () => {
		expect(await statusesAfterExpiry([0, 2], 4)).toEqual([401, 200, 401, 200]);
	});
});
