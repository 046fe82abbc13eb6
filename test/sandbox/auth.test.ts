import { expectProblem, newAsset, startHarness, TRACE_ID, type Harness } from './support/harness';

describe('bearer tokens and scopes', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	const withToken = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

	test.each([
		['GET', '/api/assets/v1'],
		['GET', '/api/assets/v1/customfields'],
		['PUT', '/api/assets/v1'],
		['DELETE', '/api/contracts/v1/x'],
		['GET', '/api/contracts/v1'],
	])('no token on %s %s: 401 with a plain Bearer challenge', async (method, url) => {
		const response = await h.anonymous.request({ method, url });
		expectProblem(response, 401, 'Unauthorized');
		expect(response.headers['www-authenticate']).toBe('Bearer');
	});

	test('a Basic header is not a token: plain Bearer challenge', async () => {
		const response = await h.anonymous.get('/api/assets/v1', {
			headers: { Authorization: 'Basic eDp5' },
		});
		expect(response.status).toBe(401);
		expect(response.headers['www-authenticate']).toBe('Bearer');
	});

	test('an unknown token: 401 invalid_token with a description', async () => {
		const response = await h.anonymous.get('/api/assets/v1', withToken('not-a-token'));
		expectProblem(response, 401, 'Unauthorized');
		expect(response.headers['www-authenticate']).toBe(
			'Bearer error="invalid_token", error_description="The access token is not valid"',
		);
	});

	test('the scheme name is case-insensitive', async () => {
		const response = await h.anonymous.get('/api/assets/v1', {
			headers: { Authorization: `bearer ${h.sandbox.token()}` },
		});
		expect(response.status).toBe(200);
	});

	test('SCIM users: 401 as a SCIM error body', async () => {
		const response = await h.anonymous.get('/api/scim/v2/Users');
		expect(response.status).toBe(401);
		expect(response.headers['www-authenticate']).toBe('Bearer');
		expect(response.data).toEqual({
			schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
			status: '401',
			detail: expect.any(String),
		});
	});

	test.each([
		['PUT', '/api/assets/v1', ['Assets.Read'], 'Assets.Write'],
		['PATCH', '/api/assets/v1/000000000000000000000000', ['Assets.Read'], 'Assets.Write'],
		['DELETE', '/api/assets/v1/000000000000000000000000', ['Assets.Read'], 'Assets.Write'],
		['GET', '/api/assets/v1', ['Assets.Write'], 'Assets.Read'],
		['GET', '/api/assets/v1/customfields', ['Contracts.Read'], 'Assets.Read'],
		['GET', '/api/contracts/v1', ['Assets.Read'], 'Contracts.Read'],
		['PUT', '/api/contracts/v1', ['Contracts.Read'], 'Contracts.Write'],
		['DELETE', '/api/contracts/v1/x', ['Contracts.Read'], 'Contracts.Write'],
	])('%s %s with %j: 403 naming %s', async (method, url, scopes, needed) => {
		const response = await h.anonymous.request({
			method,
			url,
			data: newAsset('x'),
			...withToken(h.sandbox.token(scopes)),
		});
		expectProblem(response, 403, 'Forbidden');
		expect(response.data.detail).toContain(`'${needed}'`);
		expect(response.headers['www-authenticate']).toBeUndefined();
	});

	test('SCIM users without Users.Read: 403 SCIM error body', async () => {
		const response = await h.anonymous.get(
			'/api/scim/v2/Users',
			withToken(h.sandbox.token(['Assets.Read'])),
		);
		expect(response.status).toBe(403);
		expect(response.data).toMatchObject({
			status: '403',
			detail: expect.stringContaining("'Users.Read'"),
		});
	});

	test('a forbidden write changes nothing', async () => {
		const before = h.sandbox.store.assets.size;
		await h.anonymous.put(
			'/api/assets/v1',
			newAsset('forbidden-1'),
			withToken(h.sandbox.token(['Assets.Read'])),
		);
		expect(h.sandbox.store.assets.size).toBe(before);
	});

	test('each problem has its own trace id', async () => {
		const [a, b] = await Promise.all([
			h.anonymous.get('/api/assets/v1'),
			h.anonymous.get('/api/assets/v1'),
		]);
		expect(a.data.extensions.traceId).toMatch(TRACE_ID);
		expect(a.data.extensions.traceId).not.toBe(b.data.extensions.traceId);
	});
});
