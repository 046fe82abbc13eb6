import { newAsset, newContract, startHarness, type Harness } from './support/harness';

describe('concurrent writes', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	test('20 parallel PUTs of a new asset externalId create one record', async () => {
		const before = h.sandbox.store.assets.size;
		const responses = await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				h.api.put('/api/assets/v1', newAsset('race-asset', { notes: `writer ${i}` })),
			),
		);
		expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
		expect(new Set(responses.map((response) => response.data.id)).size).toBe(1);
		expect(h.sandbox.store.assets.size).toBe(before + 1);
		const stored = h.sandbox.store.assets.findByExternalId('race-asset');
		expect(responses.map((response) => response.data.notes)).toContain(stored?.notes);
	});

	test('20 parallel PUTs of a new contract externalId create one record', async () => {
		const before = h.sandbox.store.contracts.size;
		const responses = await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				h.api.put(
					'/api/contracts/v1',
					newContract('race-contract', {
						lineItems: [{ externalId: 'L', description: `writer ${i}` }],
					}),
				),
			),
		);
		expect(new Set(responses.map((response) => response.data.id)).size).toBe(1);
		expect(h.sandbox.store.contracts.size).toBe(before + 1);
		expect(h.sandbox.store.contracts.findByExternalId('race-contract')?.lineItems).toHaveLength(1);
	});

	test('parallel PUTs and PATCHes on one asset leave one consistent record', async () => {
		const created = (await h.api.put('/api/assets/v1', newAsset('race-mixed'))).data;
		await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				i % 2
					? h.api.patch(`/api/assets/v1/${created.id}`, { notes: `patch ${i}` })
					: h.api.put('/api/assets/v1', newAsset('race-mixed')),
			),
		);
		expect(
			h.sandbox.store.assets.all().filter((asset) => asset.externalId === 'race-mixed'),
		).toHaveLength(1);
	});
});
