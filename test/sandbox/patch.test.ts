import {
	expectInvalid,
	expectProblem,
	newAsset,
	startHarness,
	type Harness,
} from './support/harness';

describe('PATCH assets', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	const create = async (externalId: string, extra: Record<string, unknown> = {}) =>
		(await h.api.put('/api/assets/v1', newAsset(externalId, extra))).data;

	test('fields left out stay, null clears, the whole record comes back', async () => {
		const asset = await create('patch-1', {
			serialNumber: 'SN-1',
			notes: 'old',
			platform: 'Windows',
		});
		const response = await h.api.patch(`/api/assets/v1/${asset.id}`, {
			notes: 'new',
			serialNumber: null,
			purchasedDate: '2023-01-31',
		});
		expect(response.status).toBe(200);
		expect(response.data).toMatchObject({
			id: asset.id,
			notes: 'new',
			platform: 'Windows',
			purchasedDate: '2023-01-31T00:00:00Z',
		});
		expect(response.data).not.toHaveProperty('serialNumber');
		expect(response.data.createdDtm).toBe(asset.createdDtm);
		expect(response.data.lastModifiedDtm >= asset.lastModifiedDtm).toBe(true);
		expect(h.sandbox.store.assets.get(asset.id)).toEqual(response.data);
	});

	test('status changes update statusType; the e-mail updates assignedTo', async () => {
		const user = h.sandbox.store.users.all()[1];
		const asset = await create('patch-2');
		const response = await h.api.patch(`/api/assets/v1/${asset.id}`, {
			status: 'Deployed',
			assignedToEmail: user.userName,
		});
		expect(response.data).toMatchObject({ statusType: 'InUse', assignedTo: { userId: user.id } });
		const cleared = await h.api.patch(`/api/assets/v1/${asset.id}`, { assignedToEmail: null });
		expect(cleared.data).not.toHaveProperty('assignedTo');
	});

	test('custom field values merge by name; null removes one', async () => {
		const asset = await create('patch-3', {
			customFieldValues: { memoryGb: { numberValue: 16 }, costCenter: { textValue: 'CC-1' } },
		});
		const response = await h.api.patch(`/api/assets/v1/${asset.id}`, {
			customFieldValues: {
				memoryGb: { numberValue: 32 },
				costCenter: null,
				'Warranty Provider': { optionValue: ['None'] },
			},
		});
		expect(response.data.customFieldValues).toEqual({
			memoryGb: { numberValue: 32 },
			warrantyProvider: { optionValue: ['None'] },
		});
	});

	test.each([[{}], [{ id: 'x', statusType: 'y', unknown: 1 }]])(
		'a body changing no field (%j): 400',
		async (body) => {
			const asset = await create(`patch-empty-${Object.keys(body).length}`);
			const response = await h.api.patch(`/api/assets/v1/${asset.id}`, body);
			expectInvalid(response, ['$']);
		},
	);

	test('clearing a required field: 400 naming it', async () => {
		const asset = await create('patch-4');
		expectInvalid(
			await h.api.patch(`/api/assets/v1/${asset.id}`, { deviceName: null, status: null }),
			['deviceName', 'status'],
		);
		expectInvalid(await h.api.patch(`/api/assets/v1/${asset.id}`, { deviceName: '' }), [
			'deviceName',
		]);
		expect(h.sandbox.store.assets.get(asset.id)?.deviceName).toBe('Device patch-4');
	});

	test('invalid values: 400 naming each, nothing changed', async () => {
		const asset = await create('patch-5');
		const response = await h.api.patch(`/api/assets/v1/${asset.id}`, {
			status: 'Lost',
			netPrice: -1,
			purchasedDate: '2023-02-30',
		});
		expectInvalid(response, ['status', 'netPrice', 'purchasedDate']);
		expect(h.sandbox.store.assets.get(asset.id)).toEqual(asset);
	});

	test('an unknown id: 404', async () => {
		expectProblem(
			await h.api.patch('/api/assets/v1/dddddddddddddddddddddddd', { notes: 'x' }),
			404,
			'Not Found',
		);
	});

	test("taking another asset's externalId: 409", async () => {
		await create('patch-taken');
		const asset = await create('patch-6');
		expectProblem(
			await h.api.patch(`/api/assets/v1/${asset.id}`, { externalId: 'patch-taken' }),
			409,
			'Conflict',
		);
		const renamed = await h.api.patch(`/api/assets/v1/${asset.id}`, { externalId: 'patch-6b' });
		expect(renamed.data.externalId).toBe('patch-6b');
		expect(h.sandbox.store.assets.findByExternalId('patch-6b')?.id).toBe(asset.id);
		expect(h.sandbox.store.assets.findByExternalId('patch-6')).toBeUndefined();
	});
});
