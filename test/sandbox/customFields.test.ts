import { expectInvalid, newAsset, startHarness, type Harness } from './support/harness';

describe('custom fields', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	test('GET /customfields lists the definitions, one of every type and a second option field', async () => {
		const response = await h.api.get('/api/assets/v1/customfields');
		expect(response.status).toBe(200);
		const { results } = response.data;
		expect(results.map((definition: { type: string }) => definition.type).sort()).toEqual([
			'Currency',
			'Date',
			'Link',
			'Number',
			'Option',
			'Option',
			'Text',
		]);
		for (const definition of results) {
			expect(definition).toEqual({
				id: expect.stringMatching(/^[0-9a-f]{24}$/),
				name: expect.any(String),
				lookupKey: expect.any(String),
				type: expect.any(String),
				...(definition.type === 'Option'
					? { options: expect.arrayContaining([{ id: expect.any(String), label: 'None' }]) }
					: {}),
			});
		}
	});

	test('typed values of every kind are stored as sent, keyed by lookup key', async () => {
		const customFieldValues = {
			memoryGb: { numberValue: 32 },
			'cost center': { textValue: 'CC-6000 IT' },
			warrantyProvider: { optionValue: ['Dell ProSupport'] },
			purchaseCost: { currencyValue: { value: 1200, currency: 'EUR' } },
			supportPortal: { linkValue: { href: 'https://support.example/', description: 'Portal' } },
			lastAuditDate: { textValue: '2024-06-01' },
		};
		const response = await h.api.put('/api/assets/v1', newAsset('custom-1', { customFieldValues }));
		expect(response.status).toBe(200);
		const { 'cost center': costCenter, ...rest } = customFieldValues;
		expect(response.data.customFieldValues).toEqual({ ...rest, costCenter });
	});

	test('the bare money amount and the plain customFields map are accepted', async () => {
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('custom-2', {
				customFieldValues: { purchaseCost: { value: 99.5, currency: 'USD' } },
				customFields: {
					memoryGb: 16,
					supportPortal: 'https://help.example/',
					warrantyProvider: 'None',
				},
			}),
		);
		expect(response.status).toBe(200);
		expect(response.data.customFields).toEqual({
			memoryGb: 16,
			supportPortal: 'https://help.example/',
			warrantyProvider: 'None',
		});
	});

	test('unknown names and wrong value types: 400 naming each', async () => {
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('custom-3', {
				customFieldValues: {
					memoryGB: { numberValue: 8 },
					memoryGbb: { numberValue: 8 },
					costCenter: { numberValue: 5 },
					warrantyProvider: { optionValue: ['Extended'] },
					lastAuditDate: { textValue: '2024-02-30' },
					purchaseCost: { currencyValue: { value: 5, currency: 'XYZ' } },
					supportPortal: { linkValue: { href: 'nope' } },
				},
				customFields: { memoryGb: 'lots', nope: 1 },
			}),
		);
		expectInvalid(response, [
			'customFieldValues.memoryGbb',
			'customFieldValues.costCenter',
			'customFieldValues.warrantyProvider',
			'customFieldValues.lastAuditDate',
			'customFieldValues.purchaseCost',
			'customFieldValues.supportPortal',
			'customFields.memoryGb',
			'customFields.nope',
		]);
		expect(response.data.errors['customFieldValues.memoryGbb'][0]).toContain(
			"did you mean 'memoryGb'",
		);
	});

	test('a custom field value with two attributes: 400', async () => {
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('custom-4', { customFieldValues: { memoryGb: { numberValue: 8, textValue: '8' } } }),
		);
		expectInvalid(response, ['customFieldValues.memoryGb']);
	});

	test('definitions added in-process are used for validation', async () => {
		h.sandbox.store.customFieldDefinitions.push({
			id: 'ffffffffffffffffffffff01',
			name: 'Floor',
			lookupKey: 'floor',
			type: 'Number',
		});
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('custom-5', { customFieldValues: { floor: { numberValue: 3 } } }),
		);
		expect(response.status).toBe(200);
	});
});
