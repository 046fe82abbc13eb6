import { expectProblem, newContract, startHarness, type Harness } from './support/harness';

type Item = Record<string, unknown>;

describe('contracts', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	const put = async (externalId: string, extra: Record<string, unknown> = {}) => {
		const response = await h.api.put('/api/contracts/v1', newContract(externalId, extra));
		expect(response.status).toBe(200);
		return response.data;
	};
	const descriptions = (contract: { lineItems: Item[] }) =>
		contract.lineItems.map((item) => item.description);

	test('PUT creates; lineItems and documents default to [], dates are midnight UTC', async () => {
		const contract = await put('c-create', {
			renewalDate: '2025-03-01T00:00:00Z',
			isAutomaticRenewal: true,
		});
		expect(contract).toMatchObject({
			id: expect.stringMatching(/^[0-9a-f]{24}$/),
			agreementDate: '2024-03-01T00:00:00Z',
			renewalDate: '2025-03-01T00:00:00Z',
			isAutomaticRenewal: true,
			lineItems: [],
			documents: [],
		});
		expect(contract).not.toHaveProperty('notes');
	});

	test('GET and DELETE accept the id or the externalId', async () => {
		const contract = await put('c-keys');
		expect((await h.api.get(`/api/contracts/v1/${contract.id}`)).data).toEqual(contract);
		expect((await h.api.get('/api/contracts/v1/c-keys')).data).toEqual(contract);
		expect((await h.api.delete('/api/contracts/v1/c-keys')).status).toBe(204);
		expectProblem(await h.api.get(`/api/contracts/v1/${contract.id}`), 404, 'Not Found');
		const again = await put('c-keys');
		expect((await h.api.delete(`/api/contracts/v1/${again.id}`)).status).toBe(204);
		expectProblem(await h.api.delete('/api/contracts/v1/c-keys'), 404, 'Not Found');
	});

	test('an externalId with reserved characters works when URL-encoded', async () => {
		const contract = await put('PO 2024/17#b');
		expect(
			(await h.api.get(`/api/contracts/v1/${encodeURIComponent('PO 2024/17#b')}`)).data.id,
		).toBe(contract.id);
	});

	test('baseAmount is amount × unitCount in USD (the base currency when none)', async () => {
		const contract = await put('c-base', {
			lineItems: [
				{ description: 'seats', unitCount: 10, amount: 12.5 },
				{ description: 'euros', unitCount: 3, amount: 100, currency: 'EUR' },
				{ description: 'flat fee', amount: 1000, currency: 'GBP' },
				{ description: 'no amount', unitCount: 4 },
				{ description: 'no rate', amount: 10, currency: 'XOF' },
			],
		});
		expect(contract.lineItems).toEqual([
			{ description: 'seats', unitCount: 10, amount: 12.5, baseAmount: 125, baseCurrency: 'USD' },
			{
				description: 'euros',
				unitCount: 3,
				amount: 100,
				currency: 'EUR',
				baseAmount: 324,
				baseCurrency: 'USD',
			},
			{
				description: 'flat fee',
				amount: 1000,
				currency: 'GBP',
				baseAmount: 1270,
				baseCurrency: 'USD',
			},
			{ description: 'no amount', unitCount: 4 },
			{ description: 'no rate', amount: 10, currency: 'XOF' },
		]);
	});

	test('sent baseAmount and baseCurrency are ignored (read-only)', async () => {
		const contract = await put('c-readonly', {
			lineItems: [{ description: 'x', amount: 2, baseAmount: 999, baseCurrency: 'EUR' }],
		});
		expect(contract.lineItems[0]).toMatchObject({ baseAmount: 2, baseCurrency: 'USD' });
	});

	test('line item dates are stored as midnight UTC', async () => {
		const contract = await put('c-dates', {
			lineItems: [{ description: 'x', startDate: '2024-01-01', endDate: '2025-01-01T00:00:00Z' }],
		});
		expect(contract.lineItems[0]).toMatchObject({
			startDate: '2024-01-01T00:00:00Z',
			endDate: '2025-01-01T00:00:00Z',
		});
	});

	test('rule 1: a known externalId updates its item; unsent externalIds are removed', async () => {
		await put('c-rule1', {
			lineItems: [
				{ externalId: 'A', description: 'a', unitCount: 1, amount: 1, notes: 'old' },
				{ externalId: 'B', description: 'b' },
			],
		});
		const contract = await put('c-rule1', {
			lineItems: [
				{ externalId: 'A', description: 'a2', unitCount: 5, amount: 1 },
				{ externalId: 'C', description: 'c' },
			],
		});
		expect(contract.lineItems).toEqual([
			{
				externalId: 'A',
				description: 'a2',
				unitCount: 5,
				amount: 1,
				baseAmount: 5,
				baseCurrency: 'USD',
			},
			{ externalId: 'C', description: 'c' },
		]);
	});

	test('existing items without an externalId stay when only items with one are sent', async () => {
		await put('c-keep', {
			lineItems: [
				{ description: 'anonymous 1' },
				{ externalId: 'A', description: 'a' },
				{ description: 'anonymous 2' },
			],
		});
		const contract = await put('c-keep', {
			lineItems: [{ externalId: 'A', description: 'a updated' }],
		});
		expect(descriptions(contract)).toEqual(['anonymous 1', 'anonymous 2', 'a updated']);
	});

	test('rule 2: items sent without an externalId replace those without one', async () => {
		await put('c-rule2', {
			lineItems: [
				{ description: 'old 1' },
				{ description: 'old 2' },
				{ externalId: 'K', description: 'kept' },
			],
		});
		const contract = await put('c-rule2', {
			lineItems: [{ externalId: 'K', description: 'kept' }, { description: 'new 1' }],
		});
		expect(descriptions(contract)).toEqual(['kept', 'new 1']);
	});

	test('lineItems and documents left out stay as they are; [] clears them', async () => {
		const documents = [{ linkUrl: 'https://docs.example/order.pdf', description: 'Order form' }];
		await put('c-keep-all', {
			lineItems: [{ description: 'x' }, { externalId: 'E', description: 'e' }],
			documents,
		});
		const kept = await put('c-keep-all', { notes: 'changed' });
		expect(descriptions(kept)).toEqual(['x', 'e']);
		expect(kept.documents).toEqual(documents);
		const cleared = await put('c-keep-all', { lineItems: [], documents: [] });
		expect(cleared.lineItems).toEqual([]);
		expect(cleared.documents).toEqual([]);
	});

	test('documents sent replace the list', async () => {
		await put('c-docs', { documents: [{ linkUrl: 'https://docs.example/a.pdf' }] });
		const contract = await put('c-docs', {
			documents: [{ linkUrl: 'https://docs.example/b.pdf' }],
		});
		expect(contract.documents).toEqual([{ linkUrl: 'https://docs.example/b.pdf' }]);
	});

	test('PUT replaces: top-level fields left out are cleared', async () => {
		await put('c-replace', { notes: 'n', paymentMethod: 'Invoice', renewalDate: '2025-01-01' });
		const contract = await put('c-replace', {});
		expect(contract).not.toHaveProperty('notes');
		expect(contract).not.toHaveProperty('paymentMethod');
		expect(contract).not.toHaveProperty('renewalDate');
	});

	test('an id and an externalId naming two different contracts: 409', async () => {
		const a = await put('c-409-a');
		await put('c-409-b');
		const response = await h.api.put('/api/contracts/v1', { ...newContract('c-409-b'), id: a.id });
		expectProblem(response, 409, 'Conflict');
	});

	test('PUT with the id in the body replaces that contract', async () => {
		const a = await put('c-by-id');
		const response = await h.api.put('/api/contracts/v1', {
			...newContract('c-by-id-renamed'),
			id: a.id,
		});
		expect(response.data.id).toBe(a.id);
		expect(response.data.externalId).toBe('c-by-id-renamed');
	});

	test('PUT on /contracts/v1/{id} is not a route: 405 with Allow', async () => {
		const response = await h.api.put('/api/contracts/v1/c-by-id', newContract('x'));
		expectProblem(response, 405, 'Method Not Allowed');
		expect(response.headers.allow).toBe('GET, DELETE');
	});
});
