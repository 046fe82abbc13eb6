import type { IDataObject } from 'n8n-workflow';
import { assetSyncSuite } from '../helpers/assetSync';
import { failureOf } from '../helpers/outcomes';

/**
 * Issue 38: Asset Sync night after night, over real HTTP. A device missing for a night and back
 * the next is restored (or said to be left), never silently `unchanged`; a new device comes to
 * rest inside the scope its source owns, so the next night finds it. Expectations by hand.
 */

/** Eight devices of this source, all in use. */
const seeded = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({
	externalId: `SYNC-${n}`,
	deviceName: `Device ${n}`,
	status: 'Deployed',
	hardwareVendor: 'Lenovo',
	serialNumber: `SN-${n}`,
	customFieldValues: { source: { optionValue: ['Jamf'] } },
}));
/** A device's row in the export: its name and serial, and the status a new device gets. */
const row = (n: number, extra: IDataObject = {}): IDataObject => ({
	externalId: `SYNC-${n}`,
	deviceName: `Device ${n}`,
	hardwareVendor: 'Lenovo',
	serialNumber: `SN-${n}`,
	status: 'Deployed',
	...extra,
});
const without = (...gone: number[]) =>
	[1, 2, 3, 4, 5, 6, 7, 8].filter((n) => !gone.includes(n)).map((n) => row(n));

describe('Sync night after night: devices that come back (issue 38)', () => {
	// README's recipe: Status set only when creating, missing devices retired
	const suite = assetSyncSuite(seeded, {
		// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
		maxFailedPercent: 100,
		fieldsToSync: ['deviceName', 'serialNumber'],
		createOnlyFields: ['status'],
		filterMode: 'expression',
		filterExpression: 'externalId sw "SYNC-"',
		missingRecords: 'setStatus',
		missingStatus: 'Retired',
		maxRemovalPercent: 50,
	});
	const { sync, writes } = suite;
	const status = (n: number) => suite.stored(`SYNC-${n}`)!.status;
	const actions = (items: Array<{ json: IDataObject }>) =>
		Object.fromEntries(items.map((item) => [item.json.externalId, item.json.action]));

	test('missing one night: retired; back the next: restored to the status a new device gets; the night after: nothing written', async () => {
		const [night1] = await sync(without(7));
		expect(actions(night1)['SYNC-7']).toBe('retired');
		expect(status(7)).toBe('Retired');

		suite.sandbox.resetStats();
		const [planned] = await sync(without(), { dryRun: true });
		expect(planned.find((item) => item.json.externalId === 'SYNC-7')!.json).toMatchObject({
			action: 'restore',
			changes: { status: { before: 'Retired', after: 'Deployed' } },
		});
		expect(writes()).toEqual([]);
		const [night2] = await sync(without());
		const restored = night2.find((item) => item.json.externalId === 'SYNC-7')!;
		expect(restored.json).toMatchObject({
			action: 'restored',
			changes: { status: { before: 'Retired', after: 'Deployed' } },
			planId: planned[0].json.planId,
		});
		expect(restored.pairedItem).toEqual({ item: 6 });
		expect(status(7)).toBe('Deployed');
		expect(writes().map((call) => [call.method, call.body])).toEqual([
			['PATCH', { status: 'Deployed' }],
		]);

		suite.sandbox.resetStats();
		const [night3] = await sync(without());
		expect(new Set(Object.values(actions(night3)))).toEqual(new Set(['unchanged']));
		expect(writes()).toEqual([]);
	});

	test('Summary and Report count and list the restored; a restored device still gets its other changes', async () => {
		await sync(without(7, 8));
		const back = [...without(7, 8), row(7, { deviceName: 'Device 7 (repaired)' }), row(8)];
		const [[summary]] = await sync(back, { dryRun: true, options: { output: 'summary' } });
		expect(summary.json).toMatchObject({ restored: 2, updated: 0, unchanged: 6, retired: 0 });
		const [[report]] = await sync(back, { dryRun: true, options: { output: 'report' } });
		expect(report.json.subject).toBe('Sync plan: would restore (back in the source) 2');
		expect(report.json.markdown).toContain(
			[
				'*Would restore (back in the source) (2)*',
				'- Device 7 (SYNC-7): Status "Retired" → "Deployed"; Device Name "Device 7" → "Device 7 (repaired)"',
				'- Device 8 (SYNC-8): Status "Retired" → "Deployed"',
			].join('\n'),
		);
		suite.sandbox.resetStats();
		await sync(back);
		expect(suite.stored('SYNC-7')).toMatchObject({
			deviceName: 'Device 7 (repaired)',
			status: 'Deployed',
		});
		// one write per device: its changes and its status together
		expect(writes()).toHaveLength(2);
	});

	test('Returning Records: Leave As It Is keeps the status and says so every night, in items, Summary and Report', async () => {
		await sync(without(7));
		suite.sandbox.resetStats();
		for (let night = 0; night < 2; night++) {
			const [items] = await sync(without(), { returningRecords: 'leave' });
			expect(items.find((item) => item.json.externalId === 'SYNC-7')!.json).toMatchObject({
				action: 'unchanged',
				reason: 'back in the source; its status stays Retired (Returning Records: Leave As It Is)',
			});
		}
		expect(writes()).toEqual([]);
		expect(status(7)).toBe('Retired');
		const [[summary]] = await sync(without(), {
			returningRecords: 'leave',
			options: { output: 'summary' },
		});
		expect(summary.json).toMatchObject({ restored: 0, returnedNotRestored: 1, unchanged: 8 });
		const [[report]] = await sync(without(), {
			returningRecords: 'leave',
			options: { output: 'report' },
		});
		expect(report.json.markdown).toContain(
			'*Back in the source, status left as it is (1)*\n- Device 7 (SYNC-7): back in the source; its status stays Retired (Returning Records: Leave As It Is)',
		);
	});

	test('a source that gives no status cannot restore: the device is listed with what to map', async () => {
		await sync(without(7));
		const [items] = await sync(without(), { createOnlyFields: [] });
		expect(items.find((item) => item.json.externalId === 'SYNC-7')!.json).toMatchObject({
			action: 'unchanged',
			reason:
				'back in the source; its status stays Retired (the source gives no Status to restore: map Status, or list it under Fields Set Only When Creating)',
		});
		expect(status(7)).toBe('Retired');
	});

	test('restorations are guarded like removals: many at once stop the run, a dry run says so', async () => {
		await sync(without(5, 6, 7, 8));
		expect([5, 6, 7, 8].map(status)).toEqual(['Retired', 'Retired', 'Retired', 'Retired']);
		suite.sandbox.resetStats();
		const error = await failureOf(sync(without(), { maxRemovalPercent: 25 }));
		expect(error.message).toBe(
			'Sync stopped by its guard: it would restore 4 of the 8 assets in scope (50 %) from the Missing Records status, more than Max Removals allows (2), which caps restorations too',
		);
		expect(writes()).toEqual([]);
		const [planned] = await sync(without(), { maxRemovalPercent: 25, dryRun: true });
		expect(planned[0].json.wouldBeRefused).toBe(error.message);
	});

	test('a status a person set by hand (not the Missing Records status) is left to them', async () => {
		await suite.person.editAsset('SYNC-3', { status: 'OutForRepair' });
		suite.sandbox.resetStats();
		const [items] = await sync(without());
		expect(actions(items)['SYNC-3']).toBe('unchanged');
		expect(writes()).toEqual([]);
		expect(status(3)).toBe('OutForRepair');
	});

	test('with Status synced the source says what it is: Deployed restores, Retired in the source keeps it retired', async () => {
		await sync(without(7, 8));
		const [items] = await sync([...without(7, 8), row(7), row(8, { status: 'Retired' })], {
			fieldsToSync: ['deviceName', 'serialNumber', 'status'],
			createOnlyFields: [],
		});
		expect(actions(items)).toMatchObject({ 'SYNC-7': 'restored', 'SYNC-8': 'unchanged' });
		expect([status(7), status(8)]).toEqual(['Deployed', 'Retired']);
	});
});

describe('Sync night after night: new devices land in their scope (issue 38)', () => {
	// docs/sync.md's example: the scope is the custom field Source = Jamf
	const suite = assetSyncSuite(seeded, {
		// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
		maxFailedPercent: 100,
		fieldsToSync: ['deviceName', 'serialNumber'],
		createOnlyFields: ['status', 'hardwareVendor'],
		filterMode: 'expression',
		filterExpression: 'customFieldValues.source eq "Jamf"',
		missingRecords: 'keep',
	});
	const { sync, writes } = suite;
	const tonight = () => [
		...without(),
		{ ...row(9), externalId: 'SYNC-NEW', serialNumber: 'SN-NEW' },
	];

	test('a new device gets the value its scope fixes, and the next night it is found in scope and updated', async () => {
		const [night1] = await sync(tonight());
		const created = night1.find((item) => item.json.externalId === 'SYNC-NEW')!.json;
		expect(created).toMatchObject({
			action: 'created',
			changes: {
				customFieldValues: { before: null, after: { source: { optionValue: ['Jamf'] } } },
			},
		});
		expect(suite.stored('SYNC-NEW')!.customFieldValues).toEqual({
			source: { optionValue: ['Jamf'] },
		});
		suite.sandbox.resetStats();
		const renamed = tonight().map((item) =>
			item.externalId === 'SYNC-NEW' ? { ...item, deviceName: 'Renamed' } : item,
		);
		const [night2] = await sync(renamed, {}, { continueOnFail: true });
		expect(night2.find((item) => item.json.externalId === 'SYNC-NEW')!.json.action).toBe('updated');
		expect(night2.filter((item) => item.json.error)).toEqual([]);
		expect(writes()).toHaveLength(1);
	});

	test('a required field the scope fixes (a vendor) is given to a new device that lacks it', async () => {
		const [items] = await sync(
			[
				...without(),
				{ externalId: 'SYNC-NEW', deviceName: 'New', serialNumber: 'SN-NEW', status: 'New' },
			],
			{ filterExpression: 'hardwareVendor eq "Lenovo" and customFieldValues.source eq "Jamf"' },
		);
		expect(items.find((item) => item.json.externalId === 'SYNC-NEW')!.json.action).toBe('created');
		expect(suite.stored('SYNC-NEW')).toMatchObject({
			hardwareVendor: 'Lenovo',
			customFieldValues: { source: { optionValue: ['Jamf'] } },
		});
	});

	test('a new device the scope could not hold is refused naming the condition; nothing is created', async () => {
		const [items] = await sync(
			[...without(), { ...row(9), externalId: 'MDM-9', serialNumber: 'SN-9' }],
			{ filterExpression: 'customFieldValues.source eq "Jamf" and externalId sw "SYNC-"' },
			{ continueOnFail: true },
		);
		expect(items.find((item) => item.json.error)!.json.error).toBe(
			'The new asset "MDM-9" would be outside the scope once created: it would not meet externalId sw "SYNC-", so the next run would not find it. Give the row a value that meets the scope (a field the scope fixes with eq is given to new assets), or widen the scope [item 8]',
		);
		expect(writes()).toEqual([]);
	});

	test('a change that would take a device out of its scope is refused naming the condition', async () => {
		const [items] = await sync(
			[...without(4), row(4, { hardwareVendor: 'Dell' })],
			{
				fieldsToSync: ['deviceName', 'hardwareVendor'],
				createOnlyFields: ['status'],
				filterExpression: 'hardwareVendor eq "Lenovo"',
			},
			{ continueOnFail: true },
		);
		expect(items.find((item) => item.json.error)!.json.error).toMatch(
			/^The asset "SYNC-4" \([0-9a-f]{24}\) would be outside the scope once changed: it would not meet hardwareVendor eq "Lenovo", so the next run would not find it\./,
		);
		expect(writes()).toEqual([]);
		expect(suite.stored('SYNC-4')!.hardwareVendor).toBe('Lenovo');
	});
});
