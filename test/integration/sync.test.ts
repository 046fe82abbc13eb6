import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { assetSyncSuite } from '../helpers/assetSync';
import { runNode } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

const node = new StockroomAsset();

/** Five assets this source owns (scope: External ID starts with SYNC-), each with notes it does not own. */
const seeded = Array.from({ length: 5 }, (_, n) => ({
	externalId: `SYNC-${n + 1}`,
	deviceName: `Device ${n + 1}`,
	status: 'Deployed',
	hardwareVendor: 'Apple',
	serialNumber: `SN-${n + 1}`,
	notes: `entered by hand ${n + 1}`,
}));
const row = (n: number, changes: IDataObject = {}): IDataObject => {
	const { notes: _notOwned, ...owned } = seeded[n - 1];
	return { ...owned, ...changes };
};

describe('Asset Sync against the sandbox', () => {
	const suite = assetSyncSuite(seeded, {
		// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
		maxFailedPercent: 100,
		fieldsToSync: ['deviceName', 'status', 'hardwareVendor', 'serialNumber'],
		filterMode: 'expression',
		filterExpression: 'externalId sw "SYNC-"',
	});
	const { sync, apiCalls, writes, stored } = suite;
	const snapshot = () => JSON.stringify(suite.sandbox.store.assets.all());

	test('create, update, unchanged and missing (Keep): one walk, one write per change, only owned fields', async () => {
		const input = [
			row(1),
			row(2, { deviceName: 'Renamed 2', status: 'OutForRepair' }),
			row(3),
			row(4),
			{ ...row(1), externalId: 'SYNC-9', serialNumber: 'SN-9' },
		];
		const [items] = await sync(input);
		const byKey = Object.fromEntries(items.map((item) => [item.json.externalId, item]));
		expect(items.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['SYNC-1', 'unchanged'],
			['SYNC-2', 'updated'],
			['SYNC-3', 'unchanged'],
			['SYNC-4', 'unchanged'],
			['SYNC-9', 'created'],
			['SYNC-5', 'missing'],
		]);
		expect(byKey['SYNC-2'].json.changes).toEqual({
			deviceName: { before: 'Device 2', after: 'Renamed 2' },
			status: { before: 'Deployed', after: 'OutForRepair' },
		});
		expect(items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4, 0].map((item) => ({ item })),
		);
		expect(byKey['SYNC-9'].json.id).toBe(stored('SYNC-9')!.id);
		// one walk, the read that confirms its end (nothing after the last id), one lookup of what
		// is created (outside the scope?), one write per change
		const calls = apiCalls();
		expect(calls.map((call) => call.method)).toEqual(['GET', 'GET', 'GET', 'PATCH', 'PUT']);
		expect(calls[1].query).toEqual({
			filter: `externalId sw "SYNC-" and id gt "${String(stored('SYNC-5')!.id)}"`,
			limit: '1',
		});
		expect(calls[3].body).toEqual({ deviceName: 'Renamed 2', status: 'OutForRepair' });
		// fields the source does not own stay
		expect(stored('SYNC-2')).toMatchObject({ deviceName: 'Renamed 2', notes: 'entered by hand 2' });
		expect(stored('SYNC-5')).toMatchObject({ status: 'Deployed' });
	});

	test('a second run right after the first writes nothing, for every kind of field', async () => {
		// dates, date-times, numbers, booleans, currencies and e-mails as a source would send them
		const kinds = (n: number) => ({
			purchasedDate: '2024-02-29',
			lastSyncDtm: `2026-11-2${n}T08:15:00Z`,
			enrolledDtm: new Date(Date.UTC(2025, 0, n, 9, 30)).toISOString(),
			netPrice: 1234.5 + n,
			netPriceCurrency: 'EUR',
			isEncrypted: n % 2 === 0,
			assignedToEmail: n === 2 ? '' : `person${n}@northwind.example`,
			platform: 'Mac',
		});
		const input = [
			row(1, { deviceName: 'Changed', ...kinds(1) }),
			row(2, kinds(2)),
			row(3, kinds(3)),
			row(4, kinds(4)),
			{ ...row(1), externalId: 'SYNC-9', serialNumber: 'SN-9', ...kinds(9) },
		];
		const parameters = {
			fieldsToSync: [
				'deviceName',
				'status',
				'hardwareVendor',
				'serialNumber',
				...Object.keys(kinds(1)),
			],
			missingRecords: 'setStatus',
			maxRemovalPercent: 50,
		};
		await sync(input, parameters);
		suite.sandbox.resetStats();
		const [items] = await sync(input, parameters);
		expect(writes()).toEqual([]);
		// the walk and the read that confirms its end
		expect(apiCalls()).toHaveLength(2);
		expect(items.map((item) => item.json.action)).toEqual([
			...Array(5).fill('unchanged'),
			'missing',
		]);
	});

	test('missing records: Set Status writes the status only; Delete deletes', async () => {
		const [items] = await sync([row(1), row(2), row(3), row(4)], {
			missingRecords: 'setStatus',
			missingStatus: 'Retired',
			maxRemovalPercent: 20,
		});
		expect(items.at(-1)!.json).toMatchObject({
			action: 'retired',
			externalId: 'SYNC-5',
			changes: { status: { before: 'Deployed', after: 'Retired' } },
		});
		expect(writes()).toEqual([
			expect.objectContaining({ method: 'PATCH', body: { status: 'Retired' } }),
		]);
		expect(stored('SYNC-5')).toMatchObject({ status: 'Retired', notes: 'entered by hand 5' });

		suite.sandbox.resetStats();
		const [deleted] = await sync([row(1), row(2), row(3)], {
			missingRecords: 'delete',
			maxRemovalPercent: 40,
		});
		expect(
			deleted.filter((item) => item.json.action === 'deleted').map((item) => item.json.externalId),
		).toEqual(['SYNC-4', 'SYNC-5']);
		expect(writes().map((call) => call.method)).toEqual(['DELETE', 'DELETE']);
		expect(stored('SYNC-4')).toBeUndefined();
	});

	test('Dry Run: the same output, and the request log shows no write', async () => {
		const input = [
			row(1, { deviceName: 'Changed' }),
			row(2),
			row(3),
			{ ...row(1), externalId: 'SYNC-9', serialNumber: 'SN-9' },
		];
		const parameters = { missingRecords: 'delete', maxRemovalPercent: 40 };
		const before = snapshot();
		const [planned] = await sync(input, { ...parameters, dryRun: true });
		expect(writes()).toEqual([]);
		expect(snapshot()).toBe(before);
		expect(planned.every((item) => item.json.dryRun === true)).toBe(true);
		const [done] = await sync(input, parameters);
		// the same items, each action said as what would happen, and the same plan id
		const strip = (items: typeof done) =>
			items.map(({ json: { dryRun: _d, id: _id, action: _a, ...rest } }) => rest);
		expect(strip(planned)).toEqual(strip(done));
		expect(planned.map((item) => item.json.action)).toEqual([
			'update',
			'unchanged',
			'unchanged',
			'create',
			'delete',
			'delete',
		]);
		expect(done.map((item) => item.json.action)).toEqual([
			'updated',
			'unchanged',
			'unchanged',
			'created',
			'deleted',
			'deleted',
		]);
		expect(planned[0].json.planId).toMatch(
			/^p2-c1-u1-s0-r0-d2-m0-f0-[0-9a-f]{16}-t[0-9a-z]+-o[0-9a-f]{6}-i[0-9a-f]{6}-g[0-9a-f]{6}$/,
		);
		expect(done.every((item) => item.json.planId === planned[0].json.planId)).toBe(true);
	});

	test('the guard: above Max Removals nothing is written and the run says how many and why', async () => {
		const error = await failureOf(sync([row(1), row(2), row(3)], { missingRecords: 'setStatus' }));
		expect(error.message).toBe(
			'Sync stopped by its guard: it would retire 2 of the 5 assets in scope (40 %), more than Max Removals allows (0: 10 % of the scope is 0)',
		);
		expect(error.description).toMatch(/^Nothing was written\./);
		expect(writes()).toEqual([]);
		// a count limit applies beside the share
		const byCount = await failureOf(
			sync([row(1), row(2), row(3)], {
				missingRecords: 'delete',
				maxRemovalPercent: 100,
				maxRemovals: 1,
			}),
		);
		expect(byCount.message).toMatch(
			/would delete 2 of the 5 assets in scope \(40 %\), more than Max Removals allows \(1: 100 % of the scope is 5, the count is 1\)$/,
		);
		expect(writes()).toEqual([]);
	});

	test('an empty source against a non-empty scope is refused unless allowed', async () => {
		const error = await failureOf(sync([], { missingRecords: 'delete', maxRemovalPercent: 100 }));
		expect(error.message).toBe('Sync refused: the input is empty, and the scope holds 5 assets');
		expect(writes()).toEqual([]);
		const [items] = await sync([], { options: { allowEmptySource: true } });
		expect(items.map((item) => item.json.action)).toEqual(Array(5).fill('missing'));
	});

	test('a key twice in the input, or on two assets in scope, is an error naming both', async () => {
		const twice = await failureOf(sync([row(1), row(2), { ...row(1), deviceName: 'Other' }]));
		expect(twice.message).toBe(
			'External ID (externalId) "SYNC-1" is in items 0 and 2 of the input (case and spaces aside): each key may appear once [item 0]',
		);
		suite.sandbox.store.assets.put({ ...stored('SYNC-3')!, serialNumber: 'SN-2' } as never);
		const ids = [stored('SYNC-2')!.id, stored('SYNC-3')!.id];
		const shared = await failureOf(
			sync([row(1), row(2), row(4), row(5)], {
				syncKey: 'serialNumber',
				fieldsToSync: ['deviceName'],
			}),
		);
		expect(shared.message).toBe(
			`Serial Number (serialNumber) "SN-2" belongs to 2 assets in scope (ids ${String(ids[0])} and ${String(ids[1])}, case and spaces aside): each key may belong to one [item 1]`,
		);
		expect(writes()).toEqual([]);
	});

	test('a bad source row is a failed item, and its record is never handled as missing', async () => {
		const [items] = await sync(
			[row(1), row(2, { status: 'Lost' }), row(3), row(4), row(5, { deviceName: 'Renamed 5' })],
			{ missingRecords: 'delete', maxRemovalPercent: 100 },
			{ continueOnFail: true },
		);
		expect(items[1]).toEqual({
			json: {
				error: expect.stringMatching(/^Invalid source row: Status \(status\) .*\[item 1\]$/),
				message: expect.stringMatching(/^Row SYNC-2 \(Device 2\)\n/),
			},
			pairedItem: { item: 1 },
		});
		expect(items.map((item) => item.json.action ?? 'failed')).toEqual([
			'unchanged',
			'failed',
			'unchanged',
			'unchanged',
			'updated',
		]);
		expect(stored('SYNC-2')).toBeDefined();
		expect(writes()).toEqual([
			expect.objectContaining({ method: 'PATCH', body: { deviceName: 'Renamed 5' } }),
		]);
		// without Continue On Fail the bad row stops the run before anything is read or written
		suite.sandbox.resetStats();
		await expect(sync([row(1), row(2, { status: 'Lost' })])).rejects.toThrow(/\[item 1\]$/);
		expect(apiCalls()).toEqual([]);
	});

	test('a row with no key holds every removal back; a new asset needing fields it lacks fails naming them', async () => {
		const [items] = await sync(
			[row(1), { deviceName: 'no key' }, { externalId: 'SYNC-NEW', deviceName: 'Half' }],
			{
				fieldsToSync: ['deviceName'],
				missingRecords: 'delete',
				maxRemovalPercent: 100,
			},
			{ continueOnFail: true },
		);
		expect(items[1].json.error).toBe(
			'External ID (externalId) is empty: the row cannot be matched to an asset [item 1]',
		);
		expect(items[2].json.error).toMatch(
			/^Invalid new asset \(none in scope has External ID \(externalId\) "SYNC-NEW"\): Status \(status\) is required/,
		);
		const missing = items.filter((item) => item.json.action === 'missing');
		expect(missing).toHaveLength(4);
		expect(missing[0].json.reason).toBe(
			'kept: 1 source row has no External ID, so which assets the source holds is not known',
		);
		expect(writes()).toEqual([]);
	});

	test('a key that exists outside the scope is never created again or replaced', async () => {
		const outside = suite.sandbox.store.assets
			.all()
			.find((asset) => !String(asset.externalId).startsWith('SYNC-')) as IDataObject;
		const [items] = await sync(
			[row(1), row(2), row(3), row(4), row(5), { ...row(1), externalId: outside.externalId }],
			{},
			{ continueOnFail: true },
		);
		expect(items[5].json.error).toBe(
			`An asset with External ID "${String(outside.externalId)}" exists outside the scope (id ${String(outside.id)}): it is left as it is. Widen the scope to include it, or correct the source. [item 5]`,
		);
		expect(writes()).toEqual([]);
	});

	test('a walk the service (or a gateway) cuts short with a well-formed empty answer, or answers out of order, writes nothing', async () => {
		const parameters = {
			missingRecords: 'delete',
			maxRemovalPercent: 100,
			options: { pageSize: 2 },
		};
		// the second page comes back as {"results": []}, without next: the walk would end at SYNC-2
		suite.sandbox.failNext(1, 'cutoff', 1);
		const cut = await failureOf(sync([row(1), row(2), row(3), row(4), row(5)], parameters));
		expect(cut.message).toMatch(
			/^Could not list the assets in scope whole: the list ended at id [0-9a-f]{24}, yet the service has assets after it \(id [0-9a-f]{24}\)/,
		);
		expect(cut.description).toMatch(/^Nothing was written/);
		expect(writes()).toEqual([]);
		suite.sandbox.resetStats();
		suite.sandbox.failNext(1, 'unordered', 1);
		const unordered = await failureOf(sync([row(1), row(2), row(3), row(4), row(5)], parameters));
		expect(unordered.message).toMatch(
			/^Could not list the assets in scope whole: the list came back out of order/,
		);
		expect(writes()).toEqual([]);
		// the first page cut: no record at all, yet the scope holds five
		suite.sandbox.resetStats();
		suite.sandbox.failNext(1, 'cutoff');
		const empty = await failureOf(
			sync([row(1)], { ...parameters, options: { allowEmptySource: true } }),
		);
		expect(empty.message).toMatch(
			/^Could not list the assets in scope whole: the list came back empty, yet the service has assets in scope/,
		);
		expect(writes()).toEqual([]);
		expect(stored('SYNC-5')).toBeDefined();
	});

	test('a walk that fails part-way writes nothing', async () => {
		suite.sandbox.failNext(10, '503', 2);
		const error = await failureOf(
			sync([row(1, { deviceName: 'x' })], {
				missingRecords: 'delete',
				maxRemovalPercent: 100,
				options: { pageSize: 2, maxAttempts: 2 },
			}),
		);
		expect(error.message).toMatch(/^Could not list the assets in scope/);
		expect(apiCalls().filter((call) => call.method === 'GET').length).toBeGreaterThan(2);
		expect(writes()).toEqual([]);
	});

	test('with On Error: Continue, a guard stop, a refused empty source and a failed walk are one error item each saying that nothing was written', async () => {
		const continued = { continueOnFail: true };
		const [guard] = await sync([row(1), row(2), row(3)], { missingRecords: 'delete' }, continued);
		expect(guard).toEqual([
			{
				json: {
					error: expect.stringMatching(/^Sync stopped by its guard: it would delete 2 of the 5/),
					message: expect.stringMatching(/^Nothing was written\./),
				},
				pairedItem: { item: 0 },
			},
		]);
		const [empty] = await sync([], { missingRecords: 'delete' }, continued);
		expect(empty).toEqual([
			{
				json: {
					error: 'Sync refused: the input is empty, and the scope holds 5 assets',
					message: expect.stringMatching(/^Nothing was written\./),
				},
				pairedItem: { item: 0 },
			},
		]);
		suite.sandbox.failNext(10, '503', 2);
		const [walk] = await sync(
			[row(1, { deviceName: 'x' })],
			{ missingRecords: 'delete', options: { pageSize: 2, maxAttempts: 2 } },
			continued,
		);
		expect(walk).toEqual([
			{
				json: {
					error: expect.stringMatching(/^Could not list the assets in scope/),
					message: expect.stringMatching(
						/^Nothing was written: the sync stopped before its first write\./,
					),
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(writes()).toEqual([]);
	});

	test('custom fields to sync are compared and written; others stay; Summary counts', async () => {
		await runNode(node, {
			parameters: { operation: 'upsert', inputMode: 'json' } as never,
			credential: suite.credential,
			input: [
				{
					externalId: 'SYNC-1',
					customFieldValues: { costCenter: { textValue: 'CC-1' }, memoryGb: { numberValue: 16 } },
				},
			],
		});
		suite.sandbox.resetStats();
		const input = [1, 2, 3, 4, 5].map((n) => ({
			...row(n),
			customFieldValues: { costCenter: { textValue: 'CC-2' } },
		}));
		const [[summary]] = await sync(input, {
			customFieldsToSync: ['costCenter'],
			options: { output: 'summary' },
		});
		expect(summary.json).toEqual({
			created: 0,
			updated: 5,
			unchanged: 0,
			missing: 0,
			retired: 0,
			deleted: 0,
			restored: 0,
			failed: 0,
			cleared: 0,
			returnedNotRestored: 0,
			scope: 5,
			source: 5,
			dryRun: false,
			planId: expect.stringMatching(
				/^p2-c0-u5-s0-r0-d0-m0-f0-[0-9a-f]{16}-t[0-9a-z]+-o[0-9a-f]{6}-i[0-9a-f]{6}-g[0-9a-f]{6}$/,
			),
		});
		expect(stored('SYNC-1')!.customFieldValues).toEqual({
			costCenter: { textValue: 'CC-2' },
			memoryGb: { numberValue: 16 },
		});
		suite.sandbox.resetStats();
		await sync(input, { customFieldsToSync: ['costCenter'] });
		expect(writes()).toEqual([]);
	});
});
