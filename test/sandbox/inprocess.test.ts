import { createSandbox } from '../../sandbox/server';
import { newAsset, startHarness, type Harness } from './support/harness';

describe('in-process API', () => {
	let h: Harness;
	let seededIds: string[];
	beforeAll(async () => {
		h = await startHarness();
		seededIds = h.sandbox.store.assets.all().map((asset) => asset.id);
	});
	afterAll(() => h.sandbox.close());

	test('the default client and the demo data', () => {
		expect(h.sandbox.client).toMatchObject({
			id: 'stockroom-demo',
			secret: 'stockroom-demo-secret',
		});
		expect(h.sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(h.sandbox.store.assets.size).toBe(40);
		expect(h.sandbox.store.contracts.size).toBe(10);
		const contracts = h.sandbox.store.contracts.all();
		expect(
			contracts.every(
				(contract) => Array.isArray(contract.lineItems) && contract.lineItems.length > 0,
			),
		).toBe(true);
		expect(contracts.some((contract) => (contract.documents as unknown[]).length > 0)).toBe(true);
	});

	test('store.assets.put writes a record with chosen timestamps, visible to since', async () => {
		const record = h.sandbox.store.assets.put({
			...newAsset('chosen-time'),
			createdDtm: '2030-05-01T00:00:00.000Z',
			lastModifiedDtm: '2030-05-02T00:00:00.000Z',
		});
		expect(record.id).toMatch(/^[0-9a-f]{24}$/);
		const response = await h.api.get('/api/assets/v1?since=2030-05-02T00:00:00Z');
		expect(response.data.results.map((asset: { id: string }) => asset.id)).toEqual([record.id]);
	});

	test('store.put refuses a second record with the same externalId', () => {
		h.sandbox.store.assets.put(newAsset('unique-in-store'));
		expect(() => h.sandbox.store.assets.put(newAsset('unique-in-store'))).toThrow(
			/already has externalId/,
		);
	});

	test('setClock sets the timestamps of API writes', async () => {
		h.sandbox.setClock(() => new Date('2029-12-31T23:59:59.123Z'));
		try {
			const response = await h.api.put('/api/assets/v1', newAsset('clocked'));
			expect(response.data).toMatchObject({
				createdDtm: '2029-12-31T23:59:59.123Z',
				lastModifiedDtm: '2029-12-31T23:59:59.123Z',
			});
			expect(response.data.id.slice(0, 8) > '70000000').toBe(true);
			// the service's clock is also the one its answers' Date header tells, to the second
			expect(response.headers.date).toBe('Mon, 31 Dec 2029 23:59:59 GMT');
		} finally {
			h.sandbox.setClock(() => new Date());
		}
	});

	test('a user added in-process is used for assignedTo', async () => {
		h.sandbox.store.users.put({
			id: 'a'.repeat(32),
			userName: 'new.person@northwind.example',
			displayName: 'New Person',
		});
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('assigned', { assignedToEmail: 'new.person@northwind.example' }),
		);
		expect(response.data.assignedTo).toEqual({
			userId: 'a'.repeat(32),
			name: 'New Person',
			email: 'new.person@northwind.example',
		});
	});

	test('token() issues tokens with the chosen scopes', async () => {
		const token = h.sandbox.token(['Contracts.Read']);
		const headers = { Authorization: `Bearer ${token}` };
		expect((await h.anonymous.get('/api/contracts/v1', { headers })).status).toBe(200);
		expect((await h.anonymous.get('/api/assets/v1', { headers })).status).toBe(403);
		expect(() => h.sandbox.token([], 'nobody')).toThrow(/no client app/);
	});

	test('the journal records each request with its query, body and status, never a secret', async () => {
		h.sandbox.resetStats();
		await h.api.put('/api/assets/v1', newAsset('journalled'));
		await h.api.get('/api/assets/v1', {
			params: { filter: 'externalId eq "journalled"', limit: 5 },
		});
		await h.anonymous.post(
			'/connect/token',
			'grant_type=client_credentials&client_id=stockroom-demo&client_secret=stockroom-demo-secret',
			{
				headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
				validateStatus: () => true,
			},
		);
		const journal = h.sandbox.journal();
		expect(journal[0]).toMatchObject({
			method: 'PUT',
			path: '/api/assets/v1',
			body: newAsset('journalled'),
			status: 200,
		});
		expect(journal[1]).toMatchObject({
			method: 'GET',
			path: '/api/assets/v1',
			query: { filter: 'externalId eq "journalled"', limit: '5' },
			status: 200,
		});
		expect(journal[2].body).toBe(
			'grant_type=client_credentials&client_id=stockroom-demo&client_secret=[redacted]',
		);
		h.sandbox.resetStats();
		expect(h.sandbox.journal()).toEqual([]);
	});

	test('reset restores the seeded data and stops faults', async () => {
		await h.api.put('/api/assets/v1', newAsset('to-be-reset'));
		h.sandbox.setFaults('500:1');
		h.sandbox.reset();
		expect(h.sandbox.store.assets.findByExternalId('to-be-reset')).toBeUndefined();
		expect((await h.api.get('/api/assets/v1?limit=1000')).data.results.length).toBe(40);
		expect(h.sandbox.store.assets.all().map((asset) => asset.id)).toEqual(seededIds);
		expect(h.sandbox.stats().totalRequests).toBe(1);
	});
});

describe('seeding', () => {
	test('the same seed gives the same data; another seed does not', async () => {
		const [a, b, c] = await Promise.all([
			createSandbox({ seed: 5 }),
			createSandbox({ seed: 5 }),
			createSandbox({ seed: 6 }),
		]);
		try {
			expect(a.store.snapshot()).toEqual(b.store.snapshot());
			expect(a.store.snapshot().assets).not.toEqual(c.store.snapshot().assets);
		} finally {
			await Promise.all([a.close(), b.close(), c.close()]);
		}
	});

	test('records n: n assets, n/5 contracts, users; ids follow creation time', async () => {
		const sandbox = await createSandbox({ records: 1000 });
		try {
			expect(sandbox.store.assets.size).toBe(1000);
			expect(sandbox.store.contracts.size).toBe(200);
			expect(sandbox.store.users.all().length).toBe(250);
			const assets = sandbox.store.assets.all();
			const created = assets.map((asset) => asset.createdDtm as string);
			expect([...created].sort()).toEqual(created);
			expect(new Set(assets.map((asset) => asset.externalId)).size).toBe(1000);
			const emails = new Set(sandbox.store.users.all().map((user) => user.userName));
			const assigned = assets.filter((asset) => asset.assignedToEmail !== undefined);
			expect(assigned.length).toBeGreaterThan(400);
			expect(
				assigned.every((asset) => emails.has(asset.assignedToEmail as string) && asset.assignedTo),
			).toBe(true);
			for (const asset of assets) {
				for (const value of Object.values(asset)) expect(value).not.toBeNull();
			}
		} finally {
			await sandbox.close();
		}
	});

	test('seeded records pass the API validation unchanged', async () => {
		const h = await startHarness({ records: 200, seed: 3 });
		try {
			for (const asset of h.sandbox.store.assets.all()) {
				const response = await h.api.put('/api/assets/v1', asset);
				expect(response.status).toBe(200);
			}
			for (const contract of h.sandbox.store.contracts.all()) {
				const response = await h.api.put('/api/contracts/v1', contract);
				expect(response.status).toBe(200);
				expect(response.data.lineItems).toEqual(contract.lineItems);
			}
		} finally {
			await h.sandbox.close();
		}
	});
});
