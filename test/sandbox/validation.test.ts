import {
	expectInvalid,
	expectProblem,
	newAsset,
	newContract,
	startHarness,
	type Harness,
} from './support/harness';

describe('write validation', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	const counts = () => [h.sandbox.store.assets.size, h.sandbox.store.contracts.size];
	/** Sends the text as it is (axios would re-encode a string that is not valid JSON). */
	const raw = (text: string, type = 'application/json') => ({
		headers: { 'Content-Type': type },
		transformRequest: [(data: unknown) => data],
		data: text,
	});

	test('an empty asset: 400 naming every required field', async () => {
		const response = await h.api.put('/api/assets/v1', {});
		expectInvalid(response, ['externalId', 'deviceName', 'status', 'hardwareVendor']);
		expect(response.data.errors.status[0]).toContain(
			'New, ReadyToDeploy, Deployed, OutForRepair, Retired',
		);
	});

	test('every bad asset field is named, and nothing is stored', async () => {
		const before = counts();
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('bad-1', {
				status: 'deployed',
				purchasedDate: '2023-02-29',
				disposalDate: '31/12/2024',
				enrolledDtm: '2024-01-01 10:00',
				lastSyncDtm: '2024-13-01T00:00:00Z',
				assignedToEmail: 'not-an-email',
				netPrice: -5,
				netPriceCurrency: 'EURO',
				isEncrypted: 'yes',
				deviceName: 42,
				notes: null,
			}),
		);
		expectInvalid(response, [
			'status',
			'purchasedDate',
			'disposalDate',
			'enrolledDtm',
			'lastSyncDtm',
			'assignedToEmail',
			'netPrice',
			'netPriceCurrency',
			'isEncrypted',
			'deviceName',
			'notes',
		]);
		expect(response.data.errors.status[0]).toContain("did you mean 'Deployed'");
		expect(counts()).toEqual(before);
	});

	test('every bad contract field is named, including inside line items and documents', async () => {
		const before = counts();
		const response = await h.api.put(
			'/api/contracts/v1',
			newContract('bad-c1', {
				type: 'Lease',
				agreementDate: '2024-04-31',
				terminationNoticeDays: 1.5,
				paymentMethod: 'Cash',
				businessOwnerEmail: 'owner@',
				isAutomaticRenewal: 'true',
				lineItems: [
					{ description: 'ok' },
					{ unitCount: -1, amount: Number.MAX_VALUE * 0, currency: 'usd', endDate: 'tomorrow' },
					'not an object',
				],
				documents: [{ linkUrl: 'ftp://files.example/x.pdf' }, { description: 'no link' }],
			}),
		);
		expectInvalid(response, [
			'type',
			'agreementDate',
			'terminationNoticeDays',
			'paymentMethod',
			'businessOwnerEmail',
			'isAutomaticRenewal',
			'lineItems[1].description',
			'lineItems[1].unitCount',
			'lineItems[1].currency',
			'lineItems[1].endDate',
			'lineItems[2]',
			'documents[0].linkUrl',
			'documents[1].linkUrl',
		]);
		expect(counts()).toEqual(before);
	});

	test('non-finite numbers cannot be sent as JSON, and a string number is refused', async () => {
		expectInvalid(await h.api.put('/api/assets/v1', newAsset('bad-2', { netPrice: '12.5' })), [
			'netPrice',
		]);
	});

	test('repeated line item externalIds: 400 naming the repeat', async () => {
		const response = await h.api.put(
			'/api/contracts/v1',
			newContract('bad-c2', {
				lineItems: [
					{ externalId: 'L1', description: 'a' },
					{ externalId: 'L1', description: 'b' },
				],
			}),
		);
		expectInvalid(response, ['lineItems[1].externalId']);
	});

	test.each([
		['an array', '[1, 2]'],
		['a string', '"asset"'],
		['null', 'null'],
	])('a body that is %s: 400 on $', async (_name, text) => {
		const response = await h.api.request({ method: 'PUT', url: '/api/assets/v1', ...raw(text) });
		expectInvalid(response, ['$']);
	});

	test('malformed JSON: 400 naming the JSON error', async () => {
		const response = await h.api.request({
			method: 'PUT',
			url: '/api/assets/v1',
			...raw('{"externalId": "x",}'),
		});
		expectInvalid(response, ['$']);
		expect(response.data.errors.$[0]).toMatch(/^The request body is not valid JSON: .+/);
	});

	test('an empty body: 400', async () => {
		const response = await h.api.request({ method: 'PUT', url: '/api/contracts/v1', ...raw('') });
		expectInvalid(response, ['$']);
		expect(response.data.errors.$[0]).toContain('empty');
	});

	test.each([
		['text/plain', 'PUT', '/api/assets/v1'],
		['application/x-www-form-urlencoded', 'PUT', '/api/contracts/v1'],
		['application/xml', 'PATCH', '/api/assets/v1/000000000000000000000000'],
	])('Content-Type %s on %s: 415', async (type, method, url) => {
		const response = await h.api.request({
			method,
			url,
			...raw(JSON.stringify(newAsset('x')), type),
		});
		expectProblem(response, 415, 'Unsupported Media Type');
		expect(response.data.detail).toContain(type);
	});

	test('JSON with a charset, or a +json type, is fine', async () => {
		const body = JSON.stringify(newAsset('charset-1'));
		const plain = await h.api.put('/api/assets/v1', body, {
			headers: { 'Content-Type': 'application/json; charset=utf-8' },
		});
		expect(plain.status).toBe(200);
		const merge = await h.api.patch(`/api/assets/v1/${plain.data.id}`, '{"notes":"x"}', {
			headers: { 'Content-Type': 'application/merge-patch+json' },
		});
		expect(merge.status).toBe(200);
	});

	test('a body over 1 MB: 413, nothing stored', async () => {
		const before = counts();
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('big-1', { notes: 'x'.repeat(1024 * 1024) }),
		);
		expectProblem(response, 413, 'Content Too Large');
		expect(counts()).toEqual(before);
		// the connection is still usable afterwards
		expect((await h.api.get('/api/assets/v1?limit=1')).status).toBe(200);
	});

	test('a body just under 1 MB is accepted', async () => {
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('big-2', { notes: 'x'.repeat(1000 * 1000) }),
		);
		expect(response.status).toBe(200);
	});
});
