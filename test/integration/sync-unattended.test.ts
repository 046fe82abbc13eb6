import type { IDataObject } from 'n8n-workflow';
import { assetSyncSuite } from '../helpers/assetSync';
import { failureOf } from '../helpers/outcomes';

/**
 * Issue 39: a Sync that runs unattended. A night of failed rows is a failed night; refusals say
 * which they are in a field workflows branch on; rows are named by what they are; a mapping that
 * reads a column no item has is refused; the report leads with what a person must see. Over real
 * HTTP against the sandbox, expectations written by hand.
 */

/** Thirty devices of an Intune-style source, each checked in on the 20th. */
const DEVICES = 30;
const seeded = Array.from({ length: DEVICES }, (_, index) => ({
	externalId: `MDM-${index + 1}`,
	deviceName: `DEV-${index + 1}`,
	serialNumber: `SN-${index + 1}`,
	status: 'Deployed',
	hardwareVendor: 'Lenovo',
	assignedToEmail: `person${index + 1}@northwind.example`,
	lastSyncDtm: '2026-11-20T08:00:00.000Z',
}));
const row = (n: number, changes: IDataObject = {}): IDataObject => ({
	externalId: `MDM-${n}`,
	deviceName: `DEV-${n}`,
	serialNumber: `SN-${n}`,
	hardwareVendor: 'Lenovo',
	status: 'Deployed',
	assignedToEmail: `person${n}@northwind.example`,
	lastSyncDtm: '2026-11-20T08:00:00.000Z',
	...changes,
});
const all = (change: (n: number) => IDataObject = () => ({})) =>
	Array.from({ length: DEVICES }, (_, index) => row(index + 1, change(index + 1)));

describe('Sync unattended (issue 39)', () => {
	const suite = assetSyncSuite(seeded, {
		syncKey: 'serialNumber',
		fieldsToSync: ['deviceName', 'serialNumber', 'assignedToEmail', 'lastSyncDtm'],
		createOnlyFields: ['status', 'hardwareVendor'],
		filterMode: 'expression',
		filterExpression: 'externalId sw "MDM-"',
		missingRecords: 'setStatus',
		maxRemovalPercent: 20,
	});
	const { sync, writes } = suite;

	describe('a night of failed rows is a failed night', () => {
		// a date format that changed: every check-in is refused
		const badDates = () => all(() => ({ lastSyncDtm: 'last Tuesday' }));

		test('30 of 30 rows failed: nothing written; with On Error: Continue one error item naming the rows, refused: rows; without, the run fails', async () => {
			const [items] = await sync(badDates(), {}, { continueOnFail: true });
			expect(items).toHaveLength(1);
			expect(items[0].json).toEqual({
				error:
					'Sync stopped by its guard: 30 of the 30 input rows failed (100 %), more than Max Failed Rows allows (3: 10 % of the rows): DEV-1 (SN-1), item 0; DEV-2 (SN-2), item 1; DEV-3 (SN-3), item 2; DEV-4 (SN-4), item 3; DEV-5 (SN-5), item 4; and 25 more',
				message: expect.stringMatching(/^Nothing was written\. A night on which many rows fail/),
			});
			// n8n sends an item to the error output when its JSON holds nothing but error and message
			// (one that carries its error object keeps only the message)
			expect(items[0].error).toBeUndefined();
			expect(writes()).toEqual([]);
			// without On Error: Continue the first bad row fails the run, as ever
			const error = await failureOf(sync(badDates()));
			expect(error.message).toMatch(
				/^Invalid source row: Last Synced At \(lastSyncDtm\) .*\[item 0\]$/,
			);
			expect(writes()).toEqual([]);
		});

		test('a dry run is not stopped: it says the real run would be refused and why, in a field', async () => {
			const [[summary]] = await sync(
				badDates(),
				{ dryRun: true, options: { output: 'summary' } },
				{ continueOnFail: true },
			);
			expect(summary.json).toMatchObject({
				failed: 30,
				wouldBeRefusedBy: 'rows',
				wouldBeRefused: expect.stringMatching(
					/^Sync stopped by its guard: 30 of the 30 input rows failed/,
				),
			});
		});

		test('three rows of thirty (10 %) go on: the others are written, the three leave as error items naming the device', async () => {
			const input = all((n) => ({
				lastSyncDtm: n <= 3 ? 'last Tuesday' : '2026-11-25T08:00:00.000Z',
			}));
			const [items] = await sync(input, {}, { continueOnFail: true });
			const failed = items.filter((item) => item.json.error);
			expect(
				failed.map((item) => [String(item.json.message).split('\n')[0], item.pairedItem]),
			).toEqual([
				['Row SN-1 (DEV-1)', { item: 0 }],
				['Row SN-2 (DEV-2)', { item: 1 }],
				['Row SN-3 (DEV-3)', { item: 2 }],
			]);
			// error and message only: what n8n (1.x too) sends down the error output
			expect(failed.every((item) => Object.keys(item.json).length === 2)).toBe(true);
			expect(writes()).toHaveLength(27);
			// a fourth is one too many
			suite.sandbox.resetStats();
			const four = all((n) => ({
				lastSyncDtm: n <= 4 ? 'last Tuesday' : '2026-11-26T08:00:00.000Z',
			}));
			const [refused] = await sync(four, {}, { continueOnFail: true });
			expect(refused.map((item) => item.json.error)).toEqual([
				expect.stringMatching(/^Sync stopped by its guard: 4 of the 30 input rows failed/),
			]);
			expect(writes()).toEqual([]);
			// the limit is the node's to set
			const [raised] = await sync(four, { maxFailedPercent: 20 }, { continueOnFail: true });
			expect(raised.filter((item) => item.json.error)).toHaveLength(4);
			expect(writes()).toHaveLength(26);
		});
	});

	describe('refusals say which they are', () => {
		test('each refusal before the first write is one error item of error and message ("Nothing was written…"), and says which it is: guard, empty, columns, settings, plan, scope', async () => {
			const continued = { continueOnFail: true };
			const refused = async (input: IDataObject[], parameters: IDataObject = {}) => {
				const [items] = await sync(input, parameters, continued);
				expect(items).toHaveLength(1);
				expect(Object.keys(items[0].json).sort()).toEqual(['error', 'message']);
				expect(items[0].json.message).toMatch(/^Nothing was written/);
				// the kind a dry run gives as wouldBeRefusedBy
				const error = await failureOf(sync(input, parameters));
				return (error as Error & { refused?: string }).refused;
			};
			expect(await refused(all().slice(0, 10))).toBe('guard');
			expect(await refused([])).toBe('empty');
			expect(await refused(all().map(({ deviceName: _name, ...rest }) => rest))).toBe('columns');
			expect(await refused(all(), { maxClearPercent: 'ten' })).toBe('settings');
			expect(await refused(all(), { applyOnlyPlan: 'approved by Anna' })).toBe('plan');
			expect(await refused(all(), { filterExpression: '' })).toBe('scope');
			expect(writes()).toEqual([]);
		});
	});

	describe('a mapping that reads a column no item has', () => {
		const mapped = (mappings: IDataObject) => ({
			sourceColumns: 'map',
			syncColumns: { mappingMode: 'defineBelow', value: mappings },
			createOnlyFields: [],
		});
		const exported = () =>
			all().map((device) => ({
				'Device ID': String(device.externalId).slice(4),
				'Device name': device.deviceName,
				'Serial number': device.serialNumber,
			}));

		test('inside a larger expression is refused naming the field, the mapping and the closest column', async () => {
			const error = await failureOf(
				sync(
					exported(),
					mapped({
						externalId: "={{ 'MDM-' + $json['Device Id'] }}",
						deviceName: "={{ $json['Device name'] }}",
						serialNumber: "={{ $json['Serial number'] }}",
					}),
				),
			);
			expect(error.message).toBe('Sync refused: no input item has External ID (externalId)');
			expect(error.description).toContain(
				`External ID (externalId): its mapping ={{ 'MDM-' + $json['Device Id'] }} reads "Device Id", which is on no item (did you mean "Device ID"?)`,
			);
			expect(writes()).toEqual([]);
		});

		test('where the mapping cannot show it, every item with one key is refused as a key column that broke', async () => {
			const error = await failureOf(
				sync(
					exported(),
					mapped({
						// the column's name built at run time: no read the node can see
						serialNumber: "={{ 'SN-' + $json[Object.keys($json)[9]] }}",
						deviceName: "={{ $json['Device name'] }}",
					}),
				),
			);
			expect(error.message).toBe(
				'Sync refused: every input item has the Serial Number (serialNumber) "SN-undefined"',
			);
			expect(error.description).toContain(
				"Check the mapping of Serial Number (serialNumber) in Columns (={{ 'SN-' + $json[Object.keys($json)[9]] }})",
			);
			expect(writes()).toEqual([]);
		});
	});

	describe('the report leads with what a person must see', () => {
		test('removals and key changes whole, then status and holder changes, failed rows; routine check-ins counted, never hiding a key change', async () => {
			const input = all((n) => ({
				lastSyncDtm: '2026-11-25T08:00:00.000Z',
				...(n === 7 ? { serialNumber: 'SN-7-BOARD' } : {}),
				...(n === 8 ? { assignedToEmail: 'new.owner@northwind.example' } : {}),
				...(n === 9 ? { deviceName: 'DEV-9 (renamed)' } : {}),
				...(n === 10 ? { lastSyncDtm: 'last Tuesday' } : {}),
			})).filter((device) => device.externalId !== 'MDM-30');
			const [[report]] = await sync(
				input,
				{ dryRun: true, options: { output: 'report', reportLimit: 1 } },
				{ continueOnFail: true },
			);
			const markdown = String(report.json.markdown);
			const headings = markdown.split('\n').filter((line) => /^\*[^*]+\*$/.test(line));
			expect(headings).toEqual([
				'*Sync plan: would update 28, would retire 1, 1 rows failed*',
				'*Would retire (1)*',
				'*Would change a key (1)*',
				'*Would change a status or who holds it (1)*',
				'*Rows refused or failed (1)*',
				'*Would update (1)*',
				'*Would update Last Synced At only (25)*',
			]);
			expect(markdown).toContain(
				'*Would change a key (1)*\n- DEV-7 (SN-7-BOARD) · person7@northwind.example: Serial Number "SN-7" → "SN-7-BOARD"; Last Synced At "2026-11-20T08:00:00Z" → "2026-11-25T08:00:00Z"',
			);
			expect(markdown).toContain(
				'*Would change a status or who holds it (1)*\n- DEV-8 (SN-8) · person8@northwind.example: Assigned To Email "person8@northwind.example" → "new.owner@northwind.example"',
			);
			expect(markdown).toContain('*Rows refused or failed (1)*\n- DEV-10 (SN-10), item 9: ');
			expect(markdown).toContain('*Would update Last Synced At only (25)*\n- 25 assets');
			expect(markdown).not.toContain('… and');
		});
	});
});
