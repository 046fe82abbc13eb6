import { clientPerson } from '../../sandbox/auth';
import {
	expectInvalid,
	expectProblem,
	newAsset,
	startHarness,
	type Harness,
} from './support/harness';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('assets', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(() => h.sandbox.close());

	test('GET by id returns the stored asset', async () => {
		const stored = h.sandbox.store.assets.all()[3];
		const response = await h.api.get(`/api/assets/v1/${stored.id}`);
		expect(response.status).toBe(200);
		expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(response.data).toEqual(stored);
	});

	test('GET an unknown id: 404 problem', async () => {
		const response = await h.api.get('/api/assets/v1/ffffffffffffffffffffffff');
		expectProblem(response, 404, 'Not Found');
		expect(response.data.type).toBe('https://tools.ietf.org/html/rfc9110#section-15.5.5');
	});

	test('PUT creates: 200 with the whole stored record and the server fields', async () => {
		const user = h.sandbox.store.users.all()[0];
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('create-1', {
				status: 'Deployed',
				purchasedDate: '2024-02-29',
				warrantyExpirationDate: '2027-02-28T00:00:00Z',
				enrolledDtm: '2024-03-01T12:00:00+02:00',
				assignedToEmail: user.userName.toUpperCase(),
				notes: '',
				netPrice: 1499.5,
				netPriceCurrency: 'EUR',
				isEncrypted: false,
				statusType: 'ignored: read-only',
				somethingElse: 'ignored: unknown',
			}),
		);
		expect(response.status).toBe(200);
		const asset = response.data;
		expect(asset).toEqual({
			id: expect.stringMatching(/^[0-9a-f]{24}$/),
			createdDtm: expect.stringMatching(ISO_MS),
			lastModifiedDtm: asset.createdDtm,
			createdBy: clientPerson('stockroom-demo'),
			lastModifiedBy: clientPerson('stockroom-demo'),
			externalId: 'create-1',
			deviceName: 'Device create-1',
			status: 'Deployed',
			hardwareVendor: 'Dell',
			assetType: 'Laptop',
			purchasedDate: '2024-02-29T00:00:00Z',
			warrantyExpirationDate: '2027-02-28T00:00:00Z',
			assignedToEmail: user.userName.toUpperCase(),
			netPrice: 1499.5,
			netPriceCurrency: 'EUR',
			enrolledDtm: '2024-03-01T10:00:00.000Z',
			isEncrypted: false,
			statusType: 'InUse',
			assignedTo: { userId: user.id, name: user.displayName, email: user.userName },
		});
		expect(asset.createdBy.name).toBe('stockroom-demo (API client)');
		expect((await h.api.get(`/api/assets/v1/${asset.id}`)).data).toEqual(asset);
	});

	test("PUT without assetType, as the service's own client sends it: 200; model, location name and the linked location", async () => {
		const body = {
			externalId: 'no-type-1',
			deviceName: 'No type',
			status: 'New',
			hardwareVendor: 'Lenovo',
			modelName: 'ThinkPad T14',
			locationName: 'berlin OFFICE',
			// read-only: the service links the location by its name, whatever is sent
			location: { id: 'x', name: 'Somewhere else' },
		};
		const response = await h.api.put('/api/assets/v1', body);
		expect(response.status).toBe(200);
		expect(response.data).not.toHaveProperty('assetType');
		expect(response.data).toMatchObject({
			modelName: 'ThinkPad T14',
			locationName: 'berlin OFFICE',
			location: { id: '64a1f0c2e4b0a1b2c3d4e5f6', name: 'Berlin office' },
		});
		const elsewhere = await h.api.put('/api/assets/v1', {
			...body,
			locationName: 'Home office',
		});
		expect(elsewhere.data.locationName).toBe('Home office');
		expect(elsewhere.data).not.toHaveProperty('location');
		const found = await h.api.get('/api/assets/v1', {
			params: { filter: 'modelName eq "thinkpad t14" and locationName sw "Home"' },
		});
		expect(found.data.results.map((asset: { externalId: string }) => asset.externalId)).toEqual([
			'no-type-1',
		]);
	});

	test('new records get larger ids, so they sort last', async () => {
		const ids = h.sandbox.store.assets.all().map((asset) => asset.id);
		const response = await h.api.put('/api/assets/v1', newAsset('create-2'));
		expect(response.data.id > ids[ids.length - 1]).toBe(true);
		expect(h.sandbox.store.assets.all().at(-1)?.id).toBe(response.data.id);
	});

	test('PUT with a known externalId replaces the record: fields left out are cleared', async () => {
		const first = await h.api.put(
			'/api/assets/v1',
			newAsset('replace-1', { serialNumber: 'SN1', notes: 'keep?' }),
		);
		const second = await h.api.put('/api/assets/v1', newAsset('replace-1', { status: 'Retired' }));
		expect(second.status).toBe(200);
		expect(second.data.id).toBe(first.data.id);
		expect(second.data.createdDtm).toBe(first.data.createdDtm);
		expect(second.data.lastModifiedDtm >= first.data.lastModifiedDtm).toBe(true);
		expect(second.data.serialNumber).toBeUndefined();
		expect(second.data.notes).toBeUndefined();
		expect(second.data.statusType).toBe('Retired');
		expect(
			h.sandbox.store.assets.all().filter((asset) => asset.externalId === 'replace-1'),
		).toHaveLength(1);
	});

	test('PUT with a body id replaces that record, even with a new externalId', async () => {
		const first = await h.api.put('/api/assets/v1', newAsset('by-id-1'));
		const second = await h.api.put('/api/assets/v1', { ...newAsset('by-id-2'), id: first.data.id });
		expect(second.data.id).toBe(first.data.id);
		expect(second.data.externalId).toBe('by-id-2');
		expect(h.sandbox.store.assets.findByExternalId('by-id-1')).toBeUndefined();
	});

	test('PUT with a body id that does not exist and a new externalId creates', async () => {
		const response = await h.api.put('/api/assets/v1', {
			...newAsset('ghost-id'),
			id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
		});
		expect(response.status).toBe(200);
		expect(response.data.id).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');
	});

	test('PUT /{id}: replaces by the route id', async () => {
		const first = await h.api.put('/api/assets/v1', newAsset('route-1'));
		const second = await h.api.put(
			`/api/assets/v1/${first.data.id}`,
			newAsset('route-1', { status: 'OutForRepair' }),
		);
		expect(second.status).toBe(200);
		expect(second.data).toMatchObject({
			id: first.data.id,
			status: 'OutForRepair',
			statusType: 'Unavailable',
		});
	});

	test('PUT /{id} with an unknown id but a known externalId replaces that record', async () => {
		const first = await h.api.put('/api/assets/v1', newAsset('route-2'));
		const second = await h.api.put(
			'/api/assets/v1/bbbbbbbbbbbbbbbbbbbbbbbb',
			newAsset('route-2', { status: 'New' }),
		);
		expect(second.status).toBe(200);
		expect(second.data.id).toBe(first.data.id);
	});

	test('PUT /{id} with an unknown id and a new externalId: 404, nothing stored', async () => {
		const response = await h.api.put(
			'/api/assets/v1/bbbbbbbbbbbbbbbbbbbbbbbb',
			newAsset('route-3'),
		);
		expectProblem(response, 404, 'Not Found');
		expect(h.sandbox.store.assets.findByExternalId('route-3')).toBeUndefined();
	});

	test('PUT /{id} with a different id in the body: 400 naming id', async () => {
		const first = await h.api.put('/api/assets/v1', newAsset('route-4'));
		const response = await h.api.put(`/api/assets/v1/${first.data.id}`, {
			...newAsset('route-4'),
			id: 'cccccccccccccccccccccccc',
		});
		expectInvalid(response, ['id']);
	});

	test('an id and an externalId naming two different records: 409, nothing changed', async () => {
		const a = await h.api.put('/api/assets/v1', newAsset('conflict-a'));
		await h.api.put('/api/assets/v1', newAsset('conflict-b'));
		const response = await h.api.put('/api/assets/v1', {
			...newAsset('conflict-b', { status: 'Retired' }),
			id: a.data.id,
		});
		expectProblem(response, 409, 'Conflict');
		expect(response.data.detail).toContain('conflict-b');
		expect(h.sandbox.store.assets.get(a.data.id)?.externalId).toBe('conflict-a');
		const routed = await h.api.put(`/api/assets/v1/${a.data.id}`, newAsset('conflict-b'));
		expectProblem(routed, 409, 'Conflict');
	});

	test('lastModifiedDtm never goes backwards', async () => {
		const stamps: string[] = [];
		for (let i = 0; i < 5; i++) {
			stamps.push((await h.api.put('/api/assets/v1', newAsset('stamps'))).data.lastModifiedDtm);
		}
		expect([...stamps].sort()).toEqual(stamps);
	});

	test('DELETE: 204 without a body, then 404', async () => {
		const created = await h.api.put('/api/assets/v1', newAsset('delete-1'));
		const response = await h.api.delete(`/api/assets/v1/${created.data.id}`);
		expect(response.status).toBe(204);
		expect(response.data).toBe('');
		expect(response.headers['content-length']).toBeUndefined();
		expect((await h.api.get(`/api/assets/v1/${created.data.id}`)).status).toBe(404);
		expectProblem(await h.api.delete(`/api/assets/v1/${created.data.id}`), 404, 'Not Found');
		// the externalId is free again
		expect((await h.api.put('/api/assets/v1', newAsset('delete-1'))).data.id).not.toBe(
			created.data.id,
		);
	});

	test('DELETE by externalId is not supported for assets: 404', async () => {
		await h.api.put('/api/assets/v1', newAsset('delete-2'));
		expect((await h.api.delete('/api/assets/v1/delete-2')).status).toBe(404);
	});

	test('assignedTo is left out when the e-mail belongs to no user', async () => {
		const response = await h.api.put(
			'/api/assets/v1',
			newAsset('nobody', { assignedToEmail: 'nobody@else.example' }),
		);
		expect(response.data.assignedToEmail).toBe('nobody@else.example');
		expect(response.data).not.toHaveProperty('assignedTo');
	});

	test.each([
		['New', 'Available'],
		['ReadyToDeploy', 'Available'],
		['Deployed', 'InUse'],
		['OutForRepair', 'Unavailable'],
		['Retired', 'Retired'],
	])('status %s has statusType %s', async (status, statusType) => {
		const response = await h.api.put('/api/assets/v1', newAsset(`status-${status}`, { status }));
		expect(response.data.statusType).toBe(statusType);
	});
});
