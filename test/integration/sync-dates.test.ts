import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { assetSyncSuite } from '../helpers/assetSync';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * Issue 39, point 6: dates as exports write them. An IT admin's Intune export (portal CSV and
 * Graph), Jamf's and Configuration Manager's date-times without a zone, day-first and month-first
 * dates, yes/no in German; a column whose dates are in the other day/month order is refused
 * whole; errors quote the value as the file has it. Over HTTP against the sandbox; expected
 * values written by hand (Berlin is UTC+1 in November, UTC+2 in July).
 */

const seeded = [1, 2, 3].map((n) => ({
	externalId: `INT-${n}`,
	deviceName: `Laptop ${n}`,
	status: 'Deployed',
	hardwareVendor: 'Lenovo',
	serialNumber: `PF-${n}`,
}));

/** The export's rows under its own column names, every cell text, as a CSV gives them. */
const intune = (cells: Array<Record<string, string>>): IDataObject[] =>
	cells.map((row, index) => ({
		'Device name': `Laptop ${index + 1}`,
		'Serial number': `PF-${index + 1}`,
		...row,
	}));

const columns = (value: Record<string, string>) => ({
	mappingMode: 'defineBelow',
	value: { serialNumber: '={{ $json["Serial number"] }}', ...value },
	matchingColumns: [],
	schema: [],
});

/** Asset Sync over the seeded assets, the export's columns mapped, matched on Serial Number. */
const intuneSyncSuite = () =>
	assetSyncSuite(seeded, {
		syncKey: 'serialNumber',
		sourceColumns: 'map',
		filterMode: 'expression',
		filterExpression: 'externalId sw "INT-"',
	});

describe('Asset Sync reads dates as device-management exports write them (issue 39)', () => {
	const suite = intuneSyncSuite();
	const { sync, apiCalls, writes, stored } = suite;

	const export1 = intune([
		{
			'Last check-in': '2026-11-25 08:14:00.0000000',
			'Enrolled date': '11/25/2026 8:14:00 AM',
			Encrypted: 'Ja',
			Purchased: '03/04/2025',
		},
		{
			'Last check-in': '2026-11-25T08:14:00.1234567Z',
			'Enrolled date': '2026-11-25 at 8:14 PM',
			Encrypted: 'Nein',
			Purchased: '12/31/2024',
		},
		{
			'Last check-in': '2026-07-01 08:14:32',
			'Enrolled date': '2026-11-25 08:14:32',
			Encrypted: 'JA',
			Purchased: '2025-01-15',
		},
	]);
	const mapped = {
		syncColumns: columns({
			lastSyncDtm: '={{ $json["Last check-in"] }}',
			enrolledDtm: '={{ $json["Enrolled date"] }}',
			isEncrypted: '={{ $json.Encrypted }}',
			purchasedDate: '={{ $json.Purchased }}',
		}),
		options: { dateFormat: 'monthFirst', timezone: 'Europe/Berlin' },
	};

	test('Intune, Jamf and Configuration Manager date-times in the zone given, month-first dates, Ja and Nein: written in UTC; a second run writes nothing', async () => {
		const [items] = await sync(export1, mapped);
		expect(items.map((item) => [item.json.serialNumber, item.json.action])).toEqual([
			['PF-1', 'updated'],
			['PF-2', 'updated'],
			['PF-3', 'updated'],
		]);
		expect(writes().map((call) => [call.method, call.body])).toEqual([
			[
				'PATCH',
				{
					lastSyncDtm: '2026-11-25T07:14:00Z',
					enrolledDtm: '2026-11-25T07:14:00Z',
					isEncrypted: true,
					purchasedDate: '2025-03-04',
				},
			],
			[
				'PATCH',
				{
					lastSyncDtm: '2026-11-25T08:14:00.123Z',
					enrolledDtm: '2026-11-25T19:14:00Z',
					isEncrypted: false,
					purchasedDate: '2024-12-31',
				},
			],
			[
				'PATCH',
				{
					lastSyncDtm: '2026-07-01T06:14:32Z',
					enrolledDtm: '2026-11-25T07:14:32Z',
					isEncrypted: true,
					purchasedDate: '2025-01-15',
				},
			],
		]);
		expect(stored('INT-1')).toMatchObject({
			lastSyncDtm: '2026-11-25T07:14:00.000Z',
			enrolledDtm: '2026-11-25T07:14:00.000Z',
			isEncrypted: true,
			purchasedDate: '2025-03-04T00:00:00Z',
		});
		expect(stored('INT-2')).toMatchObject({
			lastSyncDtm: '2026-11-25T08:14:00.123Z',
			isEncrypted: false,
		});
		suite.sandbox.resetStats();
		const [again] = await sync(export1, mapped);
		expect(again.map((item) => item.json.action)).toEqual(Array(3).fill('unchanged'));
		expect(writes()).toEqual([]);
	});

	test("without the zone option a date-time without one is in the workflow's timezone; a zone that is none is refused naming the option", async () => {
		const input = intune([{ 'Last check-in': '2026-11-25 08:14:00.0000000' }]);
		const parameters = {
			operation: 'sync',
			syncKey: 'serialNumber',
			sourceColumns: 'map',
			filterMode: 'expression',
			filterExpression: 'externalId eq "INT-1"',
			syncColumns: columns({ lastSyncDtm: '={{ $json["Last check-in"] }}' }),
			dryRun: true,
		};
		const [items] = await runNode(new StockroomAsset(), {
			parameters: parameters as never,
			credential: suite.credential,
			input,
			timezone: 'America/New_York',
		});
		expect(items[0].json.changes).toEqual({
			lastSyncDtm: { before: null, after: '2026-11-25T13:14:00Z' },
		});
		suite.sandbox.resetStats();
		const error = await failureOf(
			sync(input, {
				syncColumns: parameters.syncColumns,
				options: { timezone: 'Europe/Berln' },
			}),
		);
		expect(error.message).toBe(
			`Timezone of Dates Without One: "Europe/Berln" is not a time zone (did you mean 'Europe/Berlin'?)`,
		);
		expect(apiCalls()).toEqual([]);
	});

	test('a column with a date the Date Format cannot have (31.01.2027 month first) is refused whole, quoting it, before any request; day first it is read', async () => {
		const input = intune([
			{ Purchased: '01.02.2026' },
			{ Purchased: '31.01.2027' },
			{ Purchased: '02.03.2026' },
		]);
		const parameters = (dateFormat: string) => ({
			syncColumns: columns({ purchasedDate: '={{ $json.Purchased }}' }),
			options: { dateFormat },
		});
		const error = await failureOf(sync(input, parameters('monthFirst')));
		expect(error.message).toBe(
			'Sync refused: Purchased Date (purchasedDate) is "31.01.2027" on item 1, which is no date under Date Format MM/DD/YYYY (Month First)',
		);
		expect(error.description).toContain('Nothing was written.');
		expect(error.description).toContain(
			'Set the Date Format option to DD/MM/YYYY (Day First), or correct the value.',
		);
		expect(error.description).not.toContain('2027-31-01');
		// nothing read, nothing written; a dry run and On Error: Continue are refused the same way
		expect(apiCalls()).toEqual([]);
		await expect(sync(input, { ...parameters('monthFirst'), dryRun: true })).rejects.toThrow(
			/is "31\.01\.2027" on item 1, which is no date under Date Format/,
		);
		const [continued] = await sync(input, parameters('monthFirst'), { continueOnFail: true });
		expect(continued).toHaveLength(1);
		expect(continued[0].json.error).toBe(error.message);
		expect(apiCalls()).toEqual([]);

		const [items] = await sync(input, parameters('dayFirst'));
		expect(items.map((item) => item.json.changes)).toEqual([
			{ purchasedDate: { before: null, after: '2026-02-01' } },
			{ purchasedDate: { before: null, after: '2027-01-31' } },
			{ purchasedDate: { before: null, after: '2026-03-02' } },
		]);
	});

	test('a value not read is quoted as the file has it, with what to set or the words read', async () => {
		const input = intune([
			{ Purchased: '31.02.2027', Encrypted: 'Ja', 'Last check-in': '2026-11-25 08:14' },
			{ Purchased: '01.02.2026', Encrypted: 'Jein', 'Last check-in': '2026-11-25 08:14' },
			{ Purchased: '01.02.2026', Encrypted: 'Nein', 'Last check-in': 'gestern' },
		]);
		const [items] = await sync(
			input,
			{
				syncColumns: columns({
					purchasedDate: '={{ $json.Purchased }}',
					isEncrypted: '={{ $json.Encrypted }}',
					lastSyncDtm: '={{ $json["Last check-in"] }}',
				}),
				options: { dateFormat: 'dayFirst' },
				// every row fails here: the run goes on to say why each does
				maxFailedPercent: 100,
			},
			{ continueOnFail: true },
		);
		expect(items.map((item) => item.json.error)).toEqual([
			'Invalid source row: Purchased Date (purchasedDate) expected a date as YYYY-MM-DD, got "31.02.2027" (no such day read as DD/MM/YYYY (Day First)) [item 0]',
			'Invalid source row: Is Encrypted (isEncrypted) expected true or false, got "Jein" (the words read, case aside, as yes: yes, y, true, 1, ja, wahr, oui, vrai, sí, si, verdadero, sì, sim, x, ✓, ✔; as no: no, n, false, 0, nein, falsch, non, faux, falso, nee, não, nao, ✗, ✘) [item 1]',
			'Invalid source row: Last Synced At (lastSyncDtm) expected a date-time in ISO 8601 with a time zone, like 2024-05-01T10:30:00Z, got "gestern" (date-times are read as 2026-11-25T08:14:00Z, 2026-11-25 08:14:00, 2026-11-25 at 8:14 AM, and 11/25/2026 8:14:00 AM in the order of the Date Format) [item 2]',
		]);
		expect(writes()).toEqual([]);
	});
});

describe("Asset Sync reads a Date custom field's column as it reads the asset's own dates", () => {
	const suite = intuneSyncSuite();
	const { sync, apiCalls, writes, stored } = suite;
	const audited = (dateFormat: string) => ({
		syncColumns: columns({ 'customFieldValues.lastAuditDate': '={{ $json["Last audit"] }}' }),
		options: { dateFormat, timezone: 'Europe/Berlin' },
	});

	test('month first, a date-time without a zone and year first: written as YYYY-MM-DD; a second run writes nothing', async () => {
		const input = intune([
			{ 'Last audit': '03/04/2025' },
			{ 'Last audit': '11/25/2026 11:30:00 PM' },
			{ 'Last audit': '2026-11-25 08:14:00.0000000' },
		]);
		const [items] = await sync(input, audited('monthFirst'));
		expect(items.map((item) => item.json.action)).toEqual(Array(3).fill('updated'));
		expect(writes().map((call) => call.body)).toEqual([
			{ customFieldValues: { lastAuditDate: { textValue: '2025-03-04' } } },
			{ customFieldValues: { lastAuditDate: { textValue: '2026-11-25' } } },
			{ customFieldValues: { lastAuditDate: { textValue: '2026-11-25' } } },
		]);
		expect(stored('INT-1')).toMatchObject({
			customFieldValues: { lastAuditDate: { textValue: '2025-03-04' } },
		});
		suite.sandbox.resetStats();
		const [again] = await sync(input, audited('monthFirst'));
		expect(again.map((item) => item.json.action)).toEqual(Array(3).fill('unchanged'));
		expect(writes()).toEqual([]);
	});

	test('a column in the other day/month order is refused whole, naming the custom field; a value no order reads fails its row with what to set', async () => {
		const input = intune([{ 'Last audit': '01.02.2026' }, { 'Last audit': '31.01.2027' }]);
		const error = await failureOf(sync(input, audited('monthFirst')));
		expect(error.message).toBe(
			'Sync refused: Last Audit Date (custom field lastAuditDate) is "31.01.2027" on item 1, which is no date under Date Format MM/DD/YYYY (Month First)',
		);
		// the field's definition is read (its type is the service's); no asset is read or written
		expect(apiCalls().map((call) => `${call.method} ${call.path}`)).toEqual([
			'GET /api/assets/v1/customfields',
		]);

		const [items] = await sync(
			intune([{ 'Last audit': '31.02.2027' }, { 'Last audit': '01.02.2026' }]),
			{ ...audited('dayFirst'), maxFailedPercent: 100 },
			{ continueOnFail: true },
		);
		// the third asset is not in this export: kept, as Missing Assets says by default
		expect(items.map((item) => [item.json.action, item.json.error ?? item.json.changes])).toEqual([
			[
				undefined,
				'Invalid source row: Last Audit Date (customFieldValues.lastAuditDate) expected a date as YYYY-MM-DD in textValue, got "31.02.2027" (no such day read as DD/MM/YYYY (Day First)) [item 0]',
			],
			[
				'updated',
				{
					'customFieldValues.lastAuditDate': {
						before: null,
						after: { textValue: '2026-02-01' },
					},
				},
			],
			['missing', {}],
		]);
		const [iso] = await sync(
			intune([{ 'Last audit': '01.02.2026' }]),
			{ ...audited('iso'), maxFailedPercent: 100 },
			{ continueOnFail: true },
		);
		expect(iso[0].json.error).toBe(
			'Invalid source row: Last Audit Date (customFieldValues.lastAuditDate) expected a date as YYYY-MM-DD in textValue, got "01.02.2026" (a day-first or month-first date: set the Date Format option) [item 0]',
		);
	});
});

describe('Contract Sync reads dates as procurement exports write them (issue 39)', () => {
	const node = new StockroomContract();
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const contract = {
		externalId: 'PO-1',
		ref: 'PO-1001',
		type: 'PurchaseOrder',
		vendorName: 'Acme Software',
		agreementDate: '2025-01-15',
		renewalDate: '2026-01-15',
		lineItems: [{ externalId: 'L1', description: 'Seats', amount: 1250, currency: 'USD' }],
	};
	/** The contract's one row, as the export writes it. */
	const row = (cells: IDataObject): IDataObject => ({
		externalId: 'PO-1',
		ref: 'PO-1001',
		vendorName: 'Acme Software',
		agreementDate: '2025-01-15',
		renewalDate: '2026-01-15',
		'lineItem.externalId': 'L1',
		'lineItem.description': 'Seats',
		'lineItem.amount': '1250',
		'lineItem.currency': 'USD',
		...cells,
	});
	const sync = (input: IDataObject[], options: IDataObject) =>
		runNode(node, {
			parameters: {
				operation: 'sync',
				fieldsToSync: ['ref', 'vendorName', 'agreementDate', 'renewalDate'],
				lineItemFieldsToSync: ['description', 'amount', 'currency'],
				filterMode: 'expression',
				filterExpression: 'externalId eq "PO-1"',
				options,
			} as never,
			credential,
			input,
		});
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));

	beforeAll(async () => {
		sandbox = await createSandbox();
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(async () => {
		sandbox.reset();
		await runNode(node, {
			parameters: { operation: 'upsert', mode: 'replace', inputMode: 'json' } as never,
			credential,
			input: [contract],
		});
		sandbox.resetStats();
	});

	test('31.01.2027 under MM/DD/YYYY is refused naming the column and the value as written (not "2027-31-01"); under DD/MM/YYYY it is 31 January', async () => {
		const input = [row({ renewalDate: '31.01.2027' })];
		const error = await failureOf(sync(input, { dateFormat: 'monthFirst' }));
		expect(error.message).toBe(
			'Sync refused: Renewal Date (renewalDate) is "31.01.2027" on item 0, which is no date under Date Format MM/DD/YYYY (Month First)',
		);
		expect(error.description).not.toContain('2027-31-01');
		expect(apiCalls()).toEqual([]);
		const [items] = await sync(input, { dateFormat: 'dayFirst' });
		expect(items[0].json.changes).toEqual({
			renewalDate: { before: '2026-01-15', after: '2027-01-31' },
		});
	});

	test("a line item's date column is refused the same way, named as its column", async () => {
		const refused = await failureOf(
			runNode(node, {
				parameters: {
					operation: 'sync',
					fieldsToSync: ['vendorName'],
					lineItemFieldsToSync: ['endDate'],
					filterMode: 'expression',
					filterExpression: 'externalId eq "PO-1"',
					options: { dateFormat: 'monthFirst' },
				} as never,
				credential,
				input: [row({ 'lineItem.endDate': '31/12/2026' })],
			}),
		);
		expect(refused.message).toBe(
			'Sync refused: Line Item End Date (lineItem.endDate) is "31/12/2026" on item 0, which is no date under Date Format MM/DD/YYYY (Month First)',
		);
		expect(apiCalls()).toEqual([]);
	});

	test('an amount the other Number Format reads hints to change it', async () => {
		const error = await failureOf(
			sync([row({ 'lineItem.amount': '$1,250.00' })], { numberFormat: 'commaDecimal' }),
		);
		expect(error.message).toBe(
			'Invalid source row: Line Item Amount (lineItem.amount) expected a number, zero or more, got "$1,250.00" (it reads as a number written 1,234.56: set the Number Format option) [item 0]',
		);
		expect(apiCalls()).toEqual([]);
	});
});
