import { request } from 'node:http';
import { expectProblem, startHarness, type Harness } from './support/harness';

describe('routing and robustness', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	test.each([['/api/assets/v2'], ['/api/things/v1'], ['/'], ['/api/assets/v1/x/y']])(
		'unknown route %s: 404 problem',
		async (url) => {
			const response = await h.api.get(url);
			expectProblem(response, 404, 'Not Found');
		},
	);

	test.each([
		['POST', '/api/assets/v1', 'GET, PUT'],
		['DELETE', '/api/assets/v1', 'GET, PUT'],
		['POST', '/api/assets/v1/000000000000000000000000', 'GET, PUT, PATCH, DELETE'],
		['PUT', '/api/assets/v1/customfields', 'GET'],
		['PATCH', '/api/contracts/v1', 'GET, PUT'],
		['POST', '/api/scim/v2/Users', 'GET'],
	])('%s %s: 405 with Allow: %s', async (method, url, allow) => {
		const response = await h.api.request({ method, url, data: {} });
		expect(response.status).toBe(405);
		expect(response.headers.allow).toBe(allow);
	});

	test('literal path segments are case-insensitive; a trailing slash is fine', async () => {
		expect((await h.api.get('/API/Assets/V1/CustomFields')).status).toBe(200);
		expect((await h.api.get('/api/scim/v2/users')).status).toBe(200);
		expect((await h.api.get('/api/contracts/v1/')).status).toBe(200);
	});

	test('HEAD answers like GET without a body', async () => {
		const response = await h.api.head('/api/assets/v1?limit=1');
		expect(response.status).toBe(200);
		expect(response.data).toBe('');
	});

	test.each([
		['a huge nesting', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)],
		['invalid UTF-8 bytes', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
		['a number as the body', '12'],
		[
			'wrong shapes everywhere',
			JSON.stringify({
				externalId: ['x'],
				status: {},
				lineItems: { a: 1 },
				documents: 'x',
				customFieldValues: [1],
			}),
		],
		['a prototype key', '{"__proto__": {"externalId": "x"}, "constructor": 1}'],
	])('bad input never causes a 500: %s', async (_name, body) => {
		for (const url of [
			'/api/assets/v1',
			'/api/contracts/v1',
			'/api/assets/v1/000000000000000000000000',
		]) {
			const response = await h.api.request({
				method: url.endsWith('0') ? 'PATCH' : 'PUT',
				url,
				data: body,
				headers: { 'Content-Type': 'application/json' },
				transformRequest: [(data: unknown) => data],
			});
			expect(response.status).toBeGreaterThanOrEqual(400);
			expect(response.status).toBeLessThan(500);
		}
	});

	test('odd query strings never cause a 500', async () => {
		for (const query of [
			'filter=%E0%A4%A',
			'limit=%00',
			'after=%FF',
			'since=&until=',
			'filter=' + encodeURIComponent('('.repeat(2000)),
		]) {
			const response = await h.api.get(`/api/assets/v1?${query}`);
			expect(response.status).toBeLessThan(500);
		}
	});

	test('an absolute-form request target is read as the root path', async () => {
		const status = await new Promise<number>((resolve, reject) => {
			const url = new URL(h.sandbox.url);
			const req = request(
				{
					host: url.hostname,
					port: url.port,
					path: 'http://elsewhere.example/api/assets/v1',
					method: 'GET',
				},
				(res) => {
					res.resume();
					resolve(res.statusCode ?? 0);
				},
			);
			req.on('error', reject);
			req.end();
		});
		expect(status).toBe(404);
	});

	test('stats count requests per route and the bytes sent', async () => {
		h.sandbox.resetStats();
		const asset = h.sandbox.store.assets.all()[0];
		// uncompressed, so the bytes sent are the JSON's own
		const identity = { headers: { 'Accept-Encoding': 'identity' } };
		const list = await h.api.get('/api/assets/v1?limit=3', identity);
		await h.api.get(`/api/assets/v1/${asset.id}`, identity);
		await h.api.get(`/api/assets/v1/${asset.id}`, identity);
		await h.api.get('/nowhere', identity);
		const stats = h.sandbox.stats();
		expect(stats.requests).toEqual({
			'GET /api/assets/v1': 1,
			'GET /api/assets/v1/{id}': 2,
			'GET (no route)': 1,
		});
		expect(stats.totalRequests).toBe(4);
		expect(stats.bytesSent).toBeGreaterThan(
			Buffer.byteLength(JSON.stringify(list.data)) + 2 * Buffer.byteLength(JSON.stringify(asset)),
		);
		expect(stats.faults).toEqual({});
		expect(stats.statuses).toEqual({ 200: 3, 404: 1 });
		h.sandbox.resetStats();
		expect(h.sandbox.stats()).toEqual({
			requests: {},
			totalRequests: 0,
			bytesSent: 0,
			maxInFlight: 0,
			inFlight: 0,
			faults: {},
			connections: 0,
			statuses: {},
		});
		// the faults API calls met, per kind
		h.sandbox.failNext(2, '503');
		for (let i = 0; i < 3; i++)
			await h.api.get('/api/assets/v1?limit=1', { ...identity, validateStatus: () => true });
		expect(h.sandbox.stats().faults).toEqual({ 503: 2 });
	});
});
