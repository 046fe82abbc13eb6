import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';

const node = new StockroomAsset();
const required = {
	externalId: 'INT-1',
	deviceName: 'Integration laptop',
	status: 'Deployed',
	hardwareVendor: 'Dell',
	assetType: 'Laptop',
};

describe('Stockroom Asset node against the sandbox', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	// Create or Update here is version 1's (always Replace), as saved workflows have it: these
	// tests prove it unchanged; version 2's Merge has its own suite (upsert-merge.test.ts)
	const run = (
		parameters: IDataObject,
		extra: { input?: IDataObject[]; continueOnFail?: boolean; timezone?: string } = {},
	) =>
		runNode(node, {
			parameters: parameters as never,
			credential,
			...(parameters.operation === 'upsert' ? { typeVersion: 1 } : {}),
			...extra,
		});
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));

	beforeAll(async () => {
		sandbox = await createSandbox();
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
	});

	describe('Get Many', () => {
		test('Return All follows next over every page, one item per asset with pairedItem', async () => {
			const [items] = await run({
				operation: 'getAll',
				returnAll: true,
				options: { pageSize: 10 },
			});
			expect(items.map((item) => item.json.id)).toEqual(
				sandbox.store.assets.all().map((asset) => asset.id),
			);
			expect(items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
			const calls = apiCalls();
			expect(calls).toHaveLength(4);
			expect(calls[0]).toMatchObject({
				method: 'GET',
				path: '/api/assets/v1',
				query: { limit: '10' },
			});
			// later pages are the server's next links as given: the same parameters plus an opaque after
			expect(
				calls
					.slice(1)
					.every((call) => call.query.limit === '10' && typeof call.query.after === 'string'),
			).toBe(true);
		});

		test('Limit stops after that many records', async () => {
			const [items] = await run({
				operation: 'getAll',
				returnAll: false,
				limit: 15,
				options: { pageSize: 10 },
			});
			expect(items).toHaveLength(15);
			expect(apiCalls()).toHaveLength(2);
		});

		test('One Item per Page with Start From walks a filtered list one page per run: every match once, in order', async () => {
			const filter = 'status eq "Deployed"';
			const expected = sandbox.store.assets
				.all()
				.filter((asset) => asset.status === 'Deployed')
				.map((asset) => asset.id);
			expect(expected.length).toBeGreaterThan(20);
			const seen: unknown[] = [];
			let next = '';
			let runs = 0;
			do {
				// Limit 7 with pages of 10 reads one whole page: its next link continues exactly after it
				const [items] = await run({
					operation: 'getAll',
					returnAll: false,
					limit: 7,
					filterMode: 'expression',
					filterExpression: filter,
					options: { output: 'pages', pageSize: 10, ...(next ? { startFrom: next } : {}) },
				});
				expect(items).toHaveLength(1);
				const page = items[0].json as { records: IDataObject[]; count: number; next: string };
				expect(page.count).toBe(page.records.length);
				seen.push(...page.records.map((record) => record.id));
				next = page.next;
				runs++;
			} while (next && runs < 100);
			expect(seen).toEqual(expected);
			expect(runs).toBe(Math.ceil(expected.length / 10));
			// one request per run; the filter went with the first and rode in every next link after
			const lists = apiCalls().filter((call) => call.path === '/api/assets/v1');
			expect(lists).toHaveLength(runs);
			expect(lists.every((call) => call.query.filter === filter)).toBe(true);
		});

		test('Simplify keeps the main fields of each asset, on Get Many and in pages; off gives the record as sent', async () => {
			// written out by hand: what README says Simplify keeps
			const main = [
				'id',
				'externalId',
				'deviceName',
				'status',
				'assetType',
				'hardwareVendor',
				'modelName',
				'serialNumber',
				'assetTag',
				'assignedToEmail',
				'platform',
				'osVersion',
				'lastSyncDtm',
				'locationName',
				'lastModifiedDtm',
			];
			const first5 = sandbox.store.assets.all().slice(0, 5);
			const picked = first5.map((asset) =>
				Object.fromEntries(main.filter((name) => name in asset).map((name) => [name, asset[name]])),
			);
			const [simple] = await run({ operation: 'getAll', limit: 5, simplify: true });
			expect(simple.map((item) => item.json)).toEqual(picked);
			const [pages] = await run({
				operation: 'getAll',
				limit: 5,
				simplify: true,
				options: { output: 'pages', pageSize: 5 },
			});
			expect(pages[0].json).toMatchObject({ records: picked, count: 5 });
			const [whole] = await run({ operation: 'getAll', limit: 5 });
			expect(whole.map((item) => item.json)).toEqual(first5);
			const [[one]] = await run({
				operation: 'get',
				asset: { __rl: true, mode: 'id', value: first5[2].id },
				simplify: true,
			});
			expect(one.json).toEqual(picked[2]);
		});

		test('Start From that is not a link into the asset list fails the item naming the option', async () => {
			await expect(
				run({
					operation: 'getAll',
					returnAll: true,
					options: {
						output: 'pages',
						startFrom: 'https://elsewhere.example.com/api/contracts/v1?after=x',
					},
				}),
			).rejects.toThrow(
				/^Invalid option: Start From expected the next link of an earlier page of assets \(\/api\/assets\/v1\?\.\.\.\)/,
			);
			expect(apiCalls()).toEqual([]);
		});

		test('a builder filter with awkward values sends one quoted literal and finds the record', async () => {
			const awkward = 'Weird "quoted" \\ back\\slash — ünïcødé 😀 x" or status pr or "';
			const [[created]] = await run({
				operation: 'upsert',
				...required,
				externalId: 'AWK-1',
				deviceName: awkward,
			});
			sandbox.resetStats();
			const [items] = await run({
				operation: 'getAll',
				returnAll: true,
				filterMode: 'manual',
				matchType: 'all',
				conditions: {
					condition: [
						{ field: 'deviceName', operator: 'eq', value: awkward },
						{ field: 'status', operator: 'ne', statusValue: 'Retired' },
					],
				},
			});
			expect(items.map((item) => item.json.id)).toEqual([created.json.id]);
			expect(apiCalls()[0].query.filter).toBe(
				`deviceName eq ${JSON.stringify(awkward)} and not (status eq "Retired")`,
			);
		});

		test('numbers, dates, booleans and empties from the builder', async () => {
			await run({
				operation: 'getAll',
				returnAll: true,
				filterMode: 'manual',
				matchType: 'any',
				conditions: {
					condition: [
						{ field: 'netPrice', operator: 'ge', numberValue: 1200.5 },
						{ field: 'purchasedDate', operator: 'lt', dateValue: '2024-05-01T00:00:00' },
						{ field: 'lastSyncDtm', operator: 'gt', dateValue: '2024-05-01T10:00:00' },
						{ field: 'isEncrypted', operator: 'isFalse' },
						{ field: 'lastSyncDtm', operator: 'empty' },
						{ field: 'notes', operator: 'notCo', value: 'spare' },
					],
				},
			});
			expect(apiCalls()[0].query.filter).toBe(
				'netPrice ge 1200.5 or purchasedDate lt "2024-05-01" or lastSyncDtm gt "2024-05-01T10:00:00Z" or isEncrypted eq false or not (lastSyncDtm pr) or not (notes co "spare")',
			);
		});

		test('a custom field value is typed by its definition', async () => {
			await run({
				operation: 'getAll',
				returnAll: true,
				filterMode: 'manual',
				conditions: {
					condition: [{ field: 'customFieldValues.memoryGb', operator: 'ge', value: '16' }],
				},
			});
			const calls = apiCalls();
			expect(calls.map((call) => call.path)).toEqual([
				'/api/assets/v1/customfields',
				'/api/assets/v1',
			]);
			expect(calls[1].query.filter).toBe('customFieldValues.memoryGb ge 16');
		});

		test("an expression filter is checked before sending, and its results are the service's", async () => {
			const [items] = await run({
				operation: 'getAll',
				returnAll: true,
				filterMode: 'expression',
				filterExpression: 'STATUS eq "deployed"  AND hardwareVendor pr',
			});
			expect(apiCalls()[0].query.filter).toBe('STATUS eq "deployed" and hardwareVendor pr');
			expect(items.length).toBe(
				sandbox.store.assets.all().filter((asset) => asset.status === 'Deployed').length,
			);
			await expect(
				run({
					operation: 'getAll',
					returnAll: true,
					filterMode: 'expression',
					filterExpression: 'stauts eq "Deployed"',
				}),
			).rejects.toThrow(
				"Filter Expression, column 1: unknown attribute 'stauts' (did you mean 'status'?) [item 0]",
			);
			expect(apiCalls()).toHaveLength(1);
		});

		test('search text and modified window go to q, since and until', async () => {
			await run({
				operation: 'getAll',
				returnAll: true,
				options: { q: 'dell', since: '2024-01-01T00:00:00', until: '2025-12-31T23:59:59Z' },
			});
			expect(apiCalls()[0].query).toMatchObject({
				q: 'dell',
				since: '2024-01-01T00:00:00Z',
				until: '2025-12-31T23:59:59Z',
			});
		});

		test('a 429 storm is waited out', async () => {
			sandbox.failNext(3, '429');
			const [items] = await run({ operation: 'getAll', returnAll: true });
			expect(items).toHaveLength(sandbox.store.assets.size);
			expect(sandbox.journal().filter((entry) => entry.status === 429)).toHaveLength(3);
		}, 20_000);
	});

	describe('Get, Create or Update, Update, Delete', () => {
		test('Create or Update creates, then updates the same External ID', async () => {
			const [[created]] = await run({
				operation: 'upsert',
				...required,
				additionalFields: {
					purchasedDate: '2024-02-29T00:00:00',
					netPrice: 999.99,
					netPriceCurrency: 'EUR',
				},
			});
			expect(apiCalls()[0]).toMatchObject({
				method: 'PUT',
				path: '/api/assets/v1',
				body: {
					...required,
					purchasedDate: '2024-02-29',
					netPrice: 999.99,
					netPriceCurrency: 'EUR',
				},
			});
			const [[updated]] = await run({
				operation: 'upsert',
				...required,
				deviceName: 'Renamed laptop',
			});
			expect(updated.json.id).toBe(created.json.id);
			expect(updated.json.deviceName).toBe('Renamed laptop');
			// PUT replaces: fields left out are cleared
			expect(updated.json.netPrice).toBeUndefined();
		});

		test('Asset Type is optional, as for the service; Model Name and Location Name are written', async () => {
			const { assetType: _left, ...withoutType } = required;
			const [[created]] = await run({
				operation: 'upsert',
				...withoutType,
				assetType: '',
				additionalFields: { modelName: 'Latitude 7440', locationName: 'London office' },
			});
			const [put] = apiCalls();
			expect(put.body).toEqual({
				...withoutType,
				modelName: 'Latitude 7440',
				locationName: 'London office',
			});
			expect(created.json).toMatchObject({
				modelName: 'Latitude 7440',
				locationName: 'London office',
				location: { name: 'London office' },
			});
			expect(created.json).not.toHaveProperty('assetType');
		});

		test('Platform takes any text, as the service does; the known values are offered as a hint', async () => {
			const platform = node.description.properties
				.find(
					(property) =>
						property.name === 'additionalFields' &&
						property.displayOptions?.show?.operation?.includes('upsert'),
				)
				?.options?.find((option) => option.name === 'platform') as { type: string; hint?: string };
			expect(platform).toMatchObject({
				type: 'string',
				hint: expect.stringMatching(/^Any text\. Known values: .*Windows/),
			});
			const [[created]] = await run({
				operation: 'upsert',
				...required,
				additionalFields: { platform: 'FreeBSD' },
			});
			expect(apiCalls()[0].body).toMatchObject({ platform: 'FreeBSD' });
			expect(created.json.platform).toBe('FreeBSD');
		});

		test('Use Input Item JSON: fields assets do not have are refused by name (or left out when asked); read-only ones are ignored', async () => {
			const input = [{ ...required, colour: 'red', location: { id: 'x', name: 'y' } }];
			await expect(run({ operation: 'upsert', inputMode: 'json' }, { input })).rejects.toThrow(
				/^Invalid asset: colour .*\[item 0\]$/,
			);
			expect(apiCalls()).toEqual([]);
			await run(
				{ operation: 'upsert', inputMode: 'json', options: { ignoreUnknownFields: true } },
				{ input },
			);
			const [put] = apiCalls();
			expect(put.body).toEqual(required);
		});

		test('a JavaScript Date for a date field is the day it is in the workflow time zone, also east of UTC', async () => {
			// midnight of 1 June in Tokyo is still 31 May in UTC
			const midnightInTokyo = new Date('2024-06-01T00:00:00+09:00');
			await run(
				{ operation: 'upsert', inputMode: 'json' },
				{ input: [{ ...required, purchasedDate: midnightInTokyo }], timezone: 'Asia/Tokyo' },
			);
			await run(
				{
					operation: 'upsert',
					...required,
					externalId: 'INT-DATE-2',
					additionalFields: { warrantyExpirationDate: midnightInTokyo },
				},
				{ timezone: 'Asia/Tokyo' },
			);
			const sent = apiCalls().map((call) => call.body as IDataObject);
			expect(sent.map((body) => body.purchasedDate ?? body.warrantyExpirationDate)).toEqual([
				'2024-06-01',
				'2024-06-01',
			]);
		});

		test('custom fields are sent in their typed wire form', async () => {
			await run({
				operation: 'upsert',
				...required,
				customFieldsUi: {
					values: [
						{ name: 'memoryGb', type: 'number', numberValue: 32 },
						{ name: 'purchaseCost', type: 'money', amount: 1299.5, currency: 'EUR' },
					],
				},
			});
			const put = apiCalls().find((call) => call.method === 'PUT');
			expect((put?.body as IDataObject).customFieldValues).toEqual({
				memoryGb: { numberValue: 32 },
				purchaseCost: { currencyValue: { value: 1299.5, currency: 'EUR' } },
			});
		});

		test('Use Input Item JSON writes a record read from the service back as it is', async () => {
			const [[first]] = await run({
				operation: 'get',
				asset: { __rl: true, mode: 'list', value: sandbox.store.assets.all()[0].id },
			});
			const [[written]] = await run(
				{ operation: 'upsert', inputMode: 'json' },
				{ input: [{ ...first.json, notes: 'round trip' }] },
			);
			expect(written.json.id).toBe(first.json.id);
			expect(written.json.notes).toBe('round trip');
		});

		test('bad items stop the node before anything is written', async () => {
			await expect(
				run(
					{ operation: 'upsert', inputMode: 'json' },
					{
						input: [
							{ ...required, externalId: 'OK-1' },
							{ ...required, externalId: 'BAD-1', status: 'Broken', purchasedDate: '2021-02-30' },
						],
					},
				),
			).rejects.toThrow(
				'Invalid asset: Status (status) expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired, got "Broken" (and 1 more) [item 1]',
			);
			expect(apiCalls()).toHaveLength(0);
		});

		test('with Continue On Fail a bad item becomes an error item and the others are written', async () => {
			const [items] = await run(
				{ operation: 'upsert', inputMode: 'json' },
				{
					continueOnFail: true,
					input: [
						{ ...required, externalId: 'OK-1' },
						{ ...required, externalId: 'BAD-1', status: 'Broken' },
						{ ...required, externalId: 'OK-2' },
					],
				},
			);
			expect(
				items.map((item) => [item.pairedItem, item.json.externalId ?? item.json.error]),
			).toEqual([
				[{ item: 0 }, 'OK-1'],
				[
					{ item: 1 },
					'Invalid asset: Status (status) expected one of New, ReadyToDeploy, Deployed, OutForRepair, Retired, got "Broken" [item 1]',
				],
				[{ item: 2 }, 'OK-2'],
			]);
			expect(
				apiCalls()
					.map((call) => (call.body as IDataObject).externalId)
					.sort(),
			).toEqual(['OK-1', 'OK-2']);
		});

		test('Get by ID and by External ID', async () => {
			const target = sandbox.store.assets.all()[3];
			const [[byId]] = await run({
				operation: 'get',
				asset: { __rl: true, mode: 'id', value: target.id },
			});
			const [[byExternalId]] = await run({
				operation: 'get',
				asset: { __rl: true, mode: 'externalId', value: target.externalId },
			});
			expect(byId.json).toEqual(target);
			expect(byExternalId.json).toEqual(target);
			await expect(
				run({
					operation: 'get',
					asset: { __rl: true, mode: 'externalId', value: 'no-such-asset' },
				}),
			).rejects.toThrow('No asset with External ID "no-such-asset" exists');
		});

		test('Update sends only the fields given, nulls for Fields to Clear', async () => {
			const target = sandbox.store.assets.all().find((asset) => asset.notes !== undefined)!;
			const [[updated]] = await run({
				operation: 'update',
				asset: { __rl: true, mode: 'id', value: target.id },
				updateFields: { netPrice: 5 },
				fieldsToClear: ['notes'],
			});
			expect(apiCalls()[0]).toMatchObject({
				method: 'PATCH',
				path: `/api/assets/v1/${target.id}`,
				body: { netPrice: 5, notes: null },
			});
			expect(updated.json).toMatchObject({
				id: target.id,
				netPrice: 5,
				deviceName: target.deviceName,
			});
			expect(updated.json.notes).toBeUndefined();
			await expect(
				run({ operation: 'update', asset: { __rl: true, mode: 'id', value: target.id } }),
			).rejects.toThrow('nothing to change');
		});

		test('Delete, then delete again: 404, or a quiet success when asked', async () => {
			const target = sandbox.store.assets.all()[0];
			const locator = { __rl: true, mode: 'id', value: target.id };
			expect((await run({ operation: 'delete', asset: locator }))[0][0].json).toEqual({
				id: target.id,
				deleted: true,
			});
			await expect(run({ operation: 'delete', asset: locator })).rejects.toThrow(
				`Could not delete asset ${target.id}: it was not found (HTTP 404) [item 0]`,
			);
			expect(
				(
					await run({ operation: 'delete', asset: locator, options: { ignoreNotFound: true } })
				)[0][0].json,
			).toEqual({ id: target.id, deleted: false, notFound: true });
		});
	});
});
