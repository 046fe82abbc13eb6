import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	runNode,
	runResourceMapping,
	sandboxCredential,
	type CredentialStore,
} from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

const assets = new StockroomAsset();
const contracts = new StockroomContract();

/** What a write may change besides the fields given: the service's own bookkeeping. */
const withoutBookkeeping = (record: IDataObject | undefined): IDataObject => {
	const { lastModifiedDtm: _at, lastModifiedBy: _by, ...rest } = structuredClone(record ?? {});
	return rest;
};

describe('Create or Update, version 2: Merge and Replace, against the sandbox', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const run = (
		node: StockroomAsset | StockroomContract,
		parameters: IDataObject,
		extra: { input?: IDataObject[]; continueOnFail?: boolean } = {},
	) => runNode(node, { parameters: parameters as never, credential, ...extra });
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));
	const writes = () => apiCalls().filter((entry) => entry.method !== 'GET');
	const storedAsset = (externalId: string) =>
		sandbox.store.assets.all().find((asset) => asset.externalId === externalId) as IDataObject;
	const storedContract = (externalId: string) =>
		sandbox.store.contracts.all().find((contract) => contract.externalId === externalId) as
			IDataObject | undefined;

	beforeAll(async () => {
		sandbox = await createSandbox();
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});

	test('Merge is the default on a new node; Replace says that fields left out are cleared', () => {
		const modes = assets.description.properties.filter((property) => property.name === 'mode');
		const shown = modes.find((property) => property.type === 'options')!;
		expect(shown.default).toBe('merge');
		expect(shown.displayOptions?.show?.['@version']).toEqual([{ _cnd: { gte: 2 } }]);
		const replace = shown.options!.find(
			(option) => 'value' in option && option.value === 'replace',
		);
		expect((replace as { description: string }).description).toMatch(/left out is cleared/);
		// version 1 keeps replacing
		const hidden = modes.find((property) => property.type === 'hidden')!;
		expect(hidden).toMatchObject({
			default: 'replace',
			displayOptions: { show: { '@version': [1] } },
		});
		expect(assets.description).toMatchObject({ version: [1, 2], defaultVersion: 2 });
		expect(contracts.description).toMatchObject({ version: [1, 2], defaultVersion: 2 });
	});

	test('Merge (form): renaming an asset keeps every other field of every kind, custom fields included', async () => {
		const before = storedAsset('JAMF-000001');
		// the seeded asset carries dates, date-times, numbers, a boolean, an enum, a currency and
		// four kinds of custom field: all must survive
		expect(before).toMatchObject({
			purchasedDate: expect.any(String),
			enrolledDtm: expect.any(String),
			netPrice: expect.any(Number),
			isEncrypted: false,
			status: 'New',
			netPriceCurrency: 'GBP',
		});
		expect(Object.keys(before.customFieldValues as IDataObject)).toHaveLength(4);
		const [[written]] = await run(assets, {
			operation: 'upsert',
			externalId: 'JAMF-000001',
			fieldsToSet: { deviceName: 'Renamed by merge' },
		});
		expect(written.json.deviceName).toBe('Renamed by merge');
		expect(withoutBookkeeping(storedAsset('JAMF-000001'))).toEqual({
			...withoutBookkeeping(before),
			deviceName: 'Renamed by merge',
		});
		// one lookup, one PATCH with only the field given: Status's default ('New') is not sent
		expect(apiCalls().map((call) => call.method)).toEqual(['GET', 'PATCH']);
		expect(writes()[0]).toMatchObject({
			path: `/api/assets/v1/${String(before.id)}`,
			body: { externalId: 'JAMF-000001', deviceName: 'Renamed by merge' },
		});
	});

	test('Merge (input JSON): one custom field and a cleared field change; the other custom fields stay', async () => {
		const before = storedAsset('JAMF-000001');
		await run(
			assets,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					{
						externalId: 'JAMF-000001',
						notes: null,
						customFieldValues: { costCenter: { textValue: 'CC-9999 Finance' } },
					},
				],
			},
		);
		const { notes: _cleared, ...kept } = withoutBookkeeping(before);
		expect(withoutBookkeeping(storedAsset('JAMF-000001'))).toEqual({
			...kept,
			customFieldValues: {
				...(before.customFieldValues as IDataObject),
				costCenter: { textValue: 'CC-9999 Finance' },
			},
		});
	});

	test('Replace clears every field left out, as version 1 did', async () => {
		await run(assets, {
			operation: 'upsert',
			mode: 'replace',
			externalId: 'JAMF-000001',
			deviceName: 'Replaced',
			status: 'Deployed',
			hardwareVendor: 'Apple',
		});
		const after = storedAsset('JAMF-000001');
		expect(after).toMatchObject({ deviceName: 'Replaced', status: 'Deployed' });
		for (const field of ['serialNumber', 'notes', 'netPrice', 'customFieldValues', 'assetTag'])
			expect(after).not.toHaveProperty(field);
		expect(apiCalls().map((call) => call.method)).toEqual(['PUT']);
	});

	// after the first item, several are written at once; the call of the first twin is held up at
	// the service, so the second would reach it first and the first twin's values would be kept
	test('Replace: items with the same External ID are written in item order, the last one given is what stays', async () => {
		sandbox.failNext(1, 'slow', 1);
		const [items] = await run(
			assets,
			{ operation: 'upsert', mode: 'replace', inputMode: 'json' },
			{
				input: [
					{ externalId: 'JAMF-000001', deviceName: 'Other', status: 'New', hardwareVendor: 'HP' },
					{ externalId: 'TWICE-1', deviceName: 'First', status: 'New', hardwareVendor: 'HP' },
					{ externalId: 'TWICE-1', deviceName: 'Second', status: 'Deployed', hardwareVendor: 'HP' },
				],
			},
		);
		expect(items.map((item) => item.json.deviceName)).toEqual(['Other', 'First', 'Second']);
		const stored = sandbox.store.assets.all().filter((asset) => asset.externalId === 'TWICE-1');
		expect(stored).toEqual([expect.objectContaining({ deviceName: 'Second', status: 'Deployed' })]);
		expect(items[2].json.id).toBe(items[1].json.id);
		expect(writes().map((call) => [(call.body as IDataObject).deviceName, call.fault])).toEqual([
			['Other', undefined],
			['First', 'slow'],
			['Second', undefined],
		]);
	});

	test('Replace with Continue On Fail: an item whose twin before it failed is still written (it needs nothing from it)', async () => {
		sandbox.failNext(1, '500');
		const [items] = await run(
			assets,
			{ operation: 'upsert', mode: 'replace', inputMode: 'json', options: { maxAttempts: 1 } },
			{
				input: [
					{ externalId: 'TWICE-2', deviceName: 'First', status: 'New', hardwareVendor: 'HP' },
					{ externalId: 'TWICE-2', deviceName: 'Second', status: 'New', hardwareVendor: 'HP' },
				],
				continueOnFail: true,
			},
		);
		expect(items[0]).toMatchObject({
			json: { error: expect.any(String) },
			pairedItem: { item: 0 },
		});
		expect(items[1]).toMatchObject({ json: { deviceName: 'Second' }, pairedItem: { item: 1 } });
		expect(storedAsset('TWICE-2')).toMatchObject({ deviceName: 'Second' });
	});

	test('a Replace and then a Merge of the same new External ID: the Merge changes what the Replace created', async () => {
		sandbox.failNext(1, 'slow', 1);
		const [items] = await run(
			assets,
			{
				operation: 'upsert',
				mode: '={{ $json.mode }}',
				inputMode: 'json',
				options: { ignoreUnknownFields: true },
			},
			{
				input: [
					{
						mode: 'replace',
						externalId: 'TWICE-3',
						deviceName: 'Made',
						status: 'New',
						hardwareVendor: 'HP',
					},
					{ mode: 'merge', externalId: 'TWICE-3', notes: 'then merged' },
				],
			},
		);
		expect(items[1].json).toMatchObject({ deviceName: 'Made', notes: 'then merged' });
		expect(storedAsset('TWICE-3')).toMatchObject({ deviceName: 'Made', notes: 'then merged' });
	});

	// the ID picks the asset; the External ID is then one of its fields to change, and taking
	// another asset's External ID is the service's conflict, never a write to that other asset
	test('Merge: an item that names an asset ID writes to that asset, even after a twin with its External ID', async () => {
		const [named, other] = sandbox.store.assets.all();
		const externalId = String(other.externalId);
		const [items] = await run(
			assets,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					{ externalId, notes: 'the twin' },
					{ id: named.id, externalId, notes: 'by ID' },
				],
				continueOnFail: true,
			},
		);
		expect(items[0].json).toMatchObject({ id: other.id, notes: 'the twin' });
		expect(items[1].json.error).toBe(
			`Could not update the asset ${JSON.stringify(externalId)}: Conflict [item 1]`,
		);
		expect(writes().map((call) => [call.method, call.path])).toEqual([
			['PATCH', `/api/assets/v1/${String(other.id)}`],
			['PATCH', `/api/assets/v1/${String(named.id)}`],
		]);
		expect(sandbox.store.assets.findByExternalId(externalId)).toMatchObject({
			id: other.id,
			notes: 'the twin',
		});
	});

	test('Merge looks existing records up in batches: one list request for many items, PATCH what exists, PUT what does not', async () => {
		const existing = sandbox.store.assets.all().slice(0, 20) as IDataObject[];
		const input = [
			...existing.map((asset) => ({ externalId: asset.externalId, notes: 'merged' })),
			...Array.from({ length: 10 }, (_, n) => ({
				externalId: `NEW-${n}`,
				deviceName: `New ${n}`,
				status: 'New',
				hardwareVendor: 'Lenovo',
				// nothing to clear on a new record: not sent
				serialNumber: null,
			})),
		];
		const [items] = await run(assets, { operation: 'upsert', inputMode: 'json' }, { input });
		expect(items).toHaveLength(30);
		expect(items.map((item) => item.pairedItem)).toEqual(input.map((_, item) => ({ item })));
		const calls = apiCalls();
		expect(calls.filter((call) => call.method === 'GET')).toHaveLength(1);
		expect(calls.filter((call) => call.method === 'PATCH')).toHaveLength(20);
		expect(calls.filter((call) => call.method === 'PUT')).toHaveLength(10);
		expect(calls[0].query.filter).toBe(
			input.map((item) => `externalId eq "${String(item.externalId)}"`).join(' or '),
		);
		for (const asset of existing) {
			expect(withoutBookkeeping(storedAsset(String(asset.externalId)))).toEqual({
				...withoutBookkeeping(asset),
				notes: 'merged',
			});
		}
		expect(storedAsset('NEW-9')).toMatchObject({ deviceName: 'New 9', hardwareVendor: 'Lenovo' });
	});

	test('many items: lookups stay within the URL length (115 External IDs of 20 characters per request)', async () => {
		// "externalId eq "<20>"" is 44 characters URL-encoded, each further " or ..." 52: 6,000 fit 115
		const input = Array.from({ length: 300 }, (_, n) => ({
			externalId: `BATCH-${String(n).padStart(14, '0')}`,
			deviceName: `Batch ${n}`,
			status: 'New',
			hardwareVendor: 'HP',
		}));
		await run(assets, { operation: 'upsert', inputMode: 'json' }, { input });
		const lookups = apiCalls().filter((call) => call.method === 'GET');
		expect(lookups.map((call) => call.query.filter.split(' or ').length)).toEqual([115, 115, 70]);
		expect(input.filter((item) => storedAsset(item.externalId) === undefined)).toEqual([]);
	});

	test('Merge of a new record that lacks required fields fails naming them, and nothing is written', async () => {
		const error = await failureOf(
			run(
				assets,
				{ operation: 'upsert', inputMode: 'json' },
				{
					input: [
						{ externalId: 'JAMF-000001', notes: 'fine' },
						{ externalId: 'NOPE-1', notes: 'x' },
					],
				},
			),
		);
		expect(error.message).toBe(
			'Invalid new asset (no asset has External ID "NOPE-1" yet): Device Name (deviceName) is required: it must be text (and 2 more) [item 1]',
		);
		expect(writes()).toEqual([]);
	});

	test('with Continue On Fail, the new record without required fields is an error item; the others are written', async () => {
		const [items] = await run(
			assets,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					{ externalId: 'NOPE-1', notes: 'x' },
					{ externalId: 'JAMF-000001', notes: 'fine' },
				],
				continueOnFail: true,
			},
		);
		expect(items[0]).toMatchObject({
			json: { error: expect.stringMatching(/NOPE-1.*\[item 0\]$/) },
			pairedItem: { item: 0 },
		});
		expect(items[1]).toMatchObject({ json: { notes: 'fine' }, pairedItem: { item: 1 } });
		expect(writes()).toHaveLength(1);
	});

	test('items with the same new External ID: the first creates the asset, the next merges into it (one PUT, then a PATCH)', async () => {
		const input = [
			{
				externalId: 'DUP-1',
				deviceName: 'First',
				status: 'Deployed',
				hardwareVendor: 'Apple',
				notes: 'item 0',
			},
			{ externalId: 'JAMF-000001', notes: 'between' },
			// not a whole asset: it merges into the one item 0 creates
			{ externalId: 'DUP-1', serialNumber: 'SN-DUP-1', notes: 'item 2' },
		];
		const [items] = await run(assets, { operation: 'upsert', inputMode: 'json' }, { input });
		const merged = {
			externalId: 'DUP-1',
			deviceName: 'First',
			status: 'Deployed',
			hardwareVendor: 'Apple',
			serialNumber: 'SN-DUP-1',
			notes: 'item 2',
		};
		expect(items[2]).toMatchObject({ json: merged, pairedItem: { item: 2 } });
		const stored = sandbox.store.assets.all().filter((asset) => asset.externalId === 'DUP-1');
		expect(stored).toEqual([expect.objectContaining(merged)]);
		const duplicate = writes().filter(
			(call) => (call.body as IDataObject | undefined)?.externalId === 'DUP-1',
		);
		expect(duplicate.map((call) => [call.method, call.path])).toEqual([
			['PUT', '/api/assets/v1'],
			['PATCH', `/api/assets/v1/${stored[0].id}`],
		]);
		expect(duplicate[1].body).toEqual({
			externalId: 'DUP-1',
			serialNumber: 'SN-DUP-1',
			notes: 'item 2',
		});
	});

	test('with Continue On Fail, when the first write of a new External ID fails, the next item with it is not written and says why', async () => {
		// the lookup passes, the PUT of item 0 fails (one attempt)
		sandbox.failNext(1, '500', 1);
		const [items] = await run(
			assets,
			{ operation: 'upsert', inputMode: 'json', options: { maxAttempts: 1 } },
			{
				input: [
					{ externalId: 'DUP-2', deviceName: 'First', status: 'New', hardwareVendor: 'HP' },
					{ externalId: 'DUP-2', notes: 'second' },
				],
				continueOnFail: true,
			},
		);
		expect(items[0]).toMatchObject({
			json: { error: expect.any(String) },
			pairedItem: { item: 0 },
		});
		expect(items[1]).toMatchObject({
			json: {
				error: 'Not written: item 0, with the same External ID "DUP-2", failed before it [item 1]',
				message: expect.stringMatching(/written in item order.*depends on item 0/),
			},
			pairedItem: { item: 1 },
		});
		expect(writes().map((call) => call.method)).toEqual(['PUT']);
		expect(storedAsset('DUP-2')).toBeUndefined();
	});

	test('with Continue On Fail, when the first item of a new External ID fails the check before writing, the next item with it is not written either', async () => {
		const [items] = await run(
			assets,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					// a new asset without the required fields: refused before anything is written
					{ externalId: 'DUP-3', notes: 'first, half' },
					// whole on its own, but it merges into what item 0 would have written
					{ externalId: 'DUP-3', deviceName: 'Second', status: 'New', hardwareVendor: 'HP' },
				],
				continueOnFail: true,
			},
		);
		expect(items[0].json.error).toMatch(/^Invalid new asset .*Device Name/);
		expect(items[1]).toMatchObject({
			json: {
				error: 'Not written: item 0, with the same External ID "DUP-3", failed before it [item 1]',
			},
			pairedItem: { item: 1 },
		});
		expect(writes()).toEqual([]);
		expect(storedAsset('DUP-3')).toBeUndefined();
	});

	test('Merge of contracts reads each contract just before its write: a change made after the lookup is kept', async () => {
		const [first, second] = sandbox.store.contracts.all().slice(0, 2);
		// calls: the lookup, item 0's read, item 0's write (held up), then item 1's read and write
		sandbox.failNext(1, 'slow', 2);
		const running = run(
			contracts,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					{ externalId: String(first.externalId), notes: 'merged 0' },
					{ externalId: String(second.externalId), terminationNoticeDays: 77 },
				],
			},
		);
		// while item 0's write is held up, someone changes the other contract
		while (!sandbox.journal().some((call) => call.fault === 'slow'))
			await new Promise((resolve) => setTimeout(resolve, 5));
		const changed = sandbox.store.contracts.put({ ...second, notes: 'changed meanwhile' });
		await running;
		expect(sandbox.store.contracts.get(second.id)).toMatchObject({
			notes: 'changed meanwhile',
			terminationNoticeDays: 77,
		});
		expect(changed.notes).toBe('changed meanwhile');
		const paths = apiCalls().map((call) => `${call.method} ${call.path}`);
		expect(paths.slice(1)).toEqual([
			`GET /api/contracts/v1/${first.id}`,
			'PUT /api/contracts/v1',
			`GET /api/contracts/v1/${second.id}`,
			'PUT /api/contracts/v1',
		]);
	});

	test('the same stored contract twice in one run: both changes are kept (the second merges into what the first wrote)', async () => {
		await run(
			contracts,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					{ externalId: 'CTR-2022-00001', notes: 'first change' },
					{ externalId: 'CTR-2022-00001', terminationNoticeDays: 45 },
				],
			},
		);
		expect(storedContract('CTR-2022-00001')).toMatchObject({
			notes: 'first change',
			terminationNoticeDays: 45,
		});
		// the lookup, then each write read just before it: the second reads what the first wrote
		expect(apiCalls().map((call) => call.method)).toEqual(['GET', 'GET', 'PUT', 'GET', 'PUT']);
	});

	test('Merge of a contract keeps every field, line items and documents it is not given (read, then written back)', async () => {
		const before = storedContract('CTR-2022-00001')!;
		expect((before.lineItems as IDataObject[]).length).toBeGreaterThan(1);
		expect((before.documents as IDataObject[]).length).toBeGreaterThan(0);
		await run(contracts, {
			operation: 'upsert',
			externalId: 'CTR-2022-00001',
			fieldsToSet: { notes: 'Merged note', terminationNoticeDays: 30 },
		});
		expect(withoutBookkeeping(storedContract('CTR-2022-00001'))).toEqual({
			...withoutBookkeeping(before),
			notes: 'Merged note',
			terminationNoticeDays: 30,
		});
		const calls = apiCalls();
		expect(calls.map((call) => call.method)).toEqual(['GET', 'GET', 'PUT']);
		expect(calls[0].query.filter).toBe('externalId eq "CTR-2022-00001"');
		// the contract read again just before its write
		expect(calls[1].path).toBe(`/api/contracts/v1/${String(before.id)}`);
		// line items and documents are left out of the PUT: the service keeps them
		expect(calls[2].body).not.toHaveProperty('lineItems');
		expect(calls[2].body).not.toHaveProperty('documents');
	});

	test('Merge of a contract with line items given applies the service line-item rules to them only', async () => {
		const before = storedContract('CTR-2022-00001')!;
		const [first] = before.lineItems as IDataObject[];
		await run(
			contracts,
			{ operation: 'upsert', inputMode: 'json' },
			{
				input: [
					{
						externalId: 'CTR-2022-00001',
						lineItems: [
							{ externalId: first.externalId, description: 'Renamed line', unitCount: 5 },
						],
					},
				],
			},
		);
		const after = storedContract('CTR-2022-00001')!;
		expect(after.lineItems).toEqual([
			expect.objectContaining({
				externalId: first.externalId,
				description: 'Renamed line',
				unitCount: 5,
			}),
		]);
		expect(after).toMatchObject({
			ref: before.ref,
			vendorName: before.vendorName,
			documents: before.documents,
		});
	});

	test('Replace of a contract clears the fields left out', async () => {
		const before = storedContract('CTR-2022-00001')!;
		await run(contracts, {
			operation: 'upsert',
			mode: 'replace',
			externalId: 'CTR-2022-00001',
			ref: 'PO-NEW',
			type: 'MSA',
			vendorName: String(before.vendorName),
			agreementDate: '2024-01-01',
		});
		const after = storedContract('CTR-2022-00001')!;
		expect(after.ref).toBe('PO-NEW');
		expect(after).not.toHaveProperty('renewalDate');
		expect(after).not.toHaveProperty('paymentMethod');
		expect(apiCalls().map((call) => call.method)).toEqual(['PUT']);
	});

	test('Replace of the same contract twice in one run: the second is what stays', async () => {
		sandbox.failNext(1, 'slow', 1);
		const vendorName = String(storedContract('CTR-2022-00001')!.vendorName);
		const replacement = (ref: string) => ({
			externalId: 'CTR-2022-00001',
			ref,
			type: 'MSA',
			vendorName,
			agreementDate: '2024-01-01',
		});
		await run(
			contracts,
			{ operation: 'upsert', mode: 'replace', inputMode: 'json' },
			{
				input: [
					{ ...replacement('PO-OTHER'), externalId: 'CTR-OTHER' },
					replacement('PO-FIRST'),
					replacement('PO-SECOND'),
				],
			},
		);
		expect(storedContract('CTR-2022-00001')!.ref).toBe('PO-SECOND');
	});

	describe('Map Columns', () => {
		test('the columns: every writable field typed from the schema, custom fields typed from the service definitions, External ID to match', async () => {
			const { fields } = await runResourceMapping(assets, 'getAssetMappingColumns', {
				credential,
				parameters: { operation: 'upsert', inputMode: 'map' },
			});
			const byId = Object.fromEntries(fields.map((field) => [field.id, field]));
			expect(byId.externalId).toMatchObject({
				required: true,
				defaultMatch: true,
				canBeUsedToMatch: true,
			});
			expect(byId.deviceName).toMatchObject({
				type: 'string',
				required: true,
				canBeUsedToMatch: false,
			});
			expect(byId.status).toMatchObject({ type: 'options', required: true });
			expect(byId.status.options!.map((option) => option.value)).toEqual([
				'New',
				'ReadyToDeploy',
				'Deployed',
				'OutForRepair',
				'Retired',
			]);
			expect(byId.netPrice.type).toBe('number');
			expect(byId.isEncrypted.type).toBe('boolean');
			expect(byId.purchasedDate.type).toBe('dateTime');
			expect(byId).not.toHaveProperty('id');
			expect(byId).not.toHaveProperty('createdDtm');
			// the sandbox's seven definitions, each with its type
			expect(
				fields
					.filter((field) => field.id.startsWith('customFieldValues.'))
					.map((field) => [field.id, field.displayName, field.type]),
			).toEqual([
				['customFieldValues.memoryGb', 'Memory (GB) (Custom Field)', 'number'],
				['customFieldValues.costCenter', 'Cost Center (Custom Field)', 'string'],
				['customFieldValues.warrantyProvider', 'Warranty Provider (Custom Field)', 'string'],
				['customFieldValues.purchaseCost', 'Purchase Cost (Custom Field)', 'string'],
				['customFieldValues.supportPortal', 'Support Portal (Custom Field)', 'string'],
				['customFieldValues.lastAuditDate', 'Last Audit Date (Custom Field)', 'dateTime'],
				['customFieldValues.source', 'Source (Custom Field)', 'string'],
			]);
		});

		test('mapped below: the given columns merge in, custom fields wrapped by their types; empty columns clear nothing', async () => {
			const before = storedAsset('JAMF-000001');
			await run(assets, {
				operation: 'upsert',
				inputMode: 'map',
				columns: {
					mappingMode: 'defineBelow',
					value: {
						externalId: 'JAMF-000001',
						deviceName: 'Mapped name',
						notes: '',
						serialNumber: null,
						'customFieldValues.costCenter': 'CC-7 Mapped',
						'customFieldValues.memoryGb': 32,
						'customFieldValues.purchaseCost': '1299.5 EUR',
						'customFieldValues.warrantyProvider': 'HP Care Pack',
						'customFieldValues.lastAuditDate': '2025-03-04T00:00:00',
						'customFieldValues.supportPortal': 'https://support.example.com',
					},
					matchingColumns: ['externalId'],
					schema: [],
				},
			});
			expect(writes()[0].body).toEqual({
				externalId: 'JAMF-000001',
				deviceName: 'Mapped name',
				customFieldValues: {
					costCenter: { textValue: 'CC-7 Mapped' },
					memoryGb: { numberValue: 32 },
					purchaseCost: { currencyValue: { value: 1299.5, currency: 'EUR' } },
					warrantyProvider: { optionValue: ['HP Care Pack'] },
					lastAuditDate: { textValue: '2025-03-04' },
					supportPortal: { linkValue: { href: 'https://support.example.com' } },
				},
			});
			const after = storedAsset('JAMF-000001');
			expect(after).toMatchObject({
				deviceName: 'Mapped name',
				notes: before.notes,
				serialNumber: before.serialNumber,
			});
		});

		test('mapped automatically: the input item fields with the column names, a new asset created', async () => {
			const [[created]] = await run(
				assets,
				{
					operation: 'upsert',
					inputMode: 'map',
					columns: { mappingMode: 'autoMapInputData', value: null },
				},
				{
					input: [
						{
							externalId: 'MAP-1',
							deviceName: 'Auto mapped',
							status: 'New',
							hardwareVendor: 'Dell',
							'customFieldValues.memoryGb': '16',
							createdDtm: '2020-01-01T00:00:00Z',
							somethingElse: 'not a column',
						},
					],
				},
			);
			expect(created.json).toMatchObject({
				externalId: 'MAP-1',
				deviceName: 'Auto mapped',
				customFieldValues: { memoryGb: { numberValue: 16 } },
			});
			expect(writes()[0]).toMatchObject({
				method: 'PUT',
				body: { externalId: 'MAP-1', customFieldValues: { memoryGb: { numberValue: 16 } } },
			});
			expect(writes()[0].body).not.toHaveProperty('somethingElse');
		});

		test('a number column that reads as no number (spaces included) is an error quoting it as given; the others are written', async () => {
			const [items] = await run(
				assets,
				{
					operation: 'upsert',
					inputMode: 'map',
					columns: { mappingMode: 'autoMapInputData', value: null },
				},
				{
					input: [
						{ externalId: 'JAMF-000001', 'customFieldValues.memoryGb': '16 GB' },
						{ externalId: 'JAMF-000002', 'customFieldValues.purchaseCost': '1.299,50 EUR' },
						{ externalId: 'JAMF-000003', 'customFieldValues.memoryGb': ' 24 ' },
						// Number(" ") is 0: a cell of spaces is no number, not a zero
						{ externalId: 'JAMF-000004', 'customFieldValues.memoryGb': '  ' },
					],
					continueOnFail: true,
				},
			);
			expect(items.map((item) => item.json.error)).toEqual([
				'Invalid asset: Memory (GB) (customFieldValues.memoryGb) expected a number in numberValue, got "16 GB" [item 0]',
				'Invalid asset: Purchase Cost (customFieldValues.purchaseCost) expected a money amount {value, currency}, got "1.299,50 EUR" [item 1]',
				undefined,
				'Invalid asset: Memory (GB) (customFieldValues.memoryGb) expected a number in numberValue, got "  " [item 3]',
			]);
			expect(writes()).toEqual([
				expect.objectContaining({
					body: { externalId: 'JAMF-000003', customFieldValues: { memoryGb: { numberValue: 24 } } },
				}),
			]);
		});
	});
});
