import type { IDataObject } from 'n8n-workflow';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * Contract Sync on real procurement exports (issue 34, with the rules of issue 31): one row per
 * line item with the order's fields repeated, rows that disagree, keys padded and re-cased,
 * placeholder keys, columns named the export's way or missing, locale dates and amounts with
 * separators, empty cells, empty scopes, many rows on one key. Expectations written by hand.
 */

const node = new StockroomContract();

/** Two contracts of this source (scope: External ID starts with PO-), two line items each. */
const seeded: IDataObject[] = [1, 2].map((n) => ({
	externalId: `PO-${n}`,
	ref: `PO-100${n}`,
	type: 'PurchaseOrder',
	vendorName: n === 1 ? 'Acme Software' : 'Globex',
	agreementDate: '2025-01-15',
	renewalDate: '2026-01-15',
	lineItems: [
		{ externalId: 'L1', description: 'Seats', unitCount: 50, amount: 1250, currency: 'USD' },
		{ externalId: 'L2', description: 'Support', amount: 300, currency: 'USD' },
	],
}));

/** A contract's rows as an export has them: every cell text. */
function rowsOf(n: number, change: (row: IDataObject) => IDataObject = (row) => row) {
	const contract = seeded[n - 1];
	return (contract.lineItems as IDataObject[]).map((line) =>
		change({
			externalId: contract.externalId,
			ref: contract.ref,
			type: contract.type,
			vendorName: contract.vendorName,
			agreementDate: contract.agreementDate,
			renewalDate: contract.renewalDate,
			'lineItem.externalId': line.externalId,
			'lineItem.description': line.description,
			'lineItem.amount': String(line.amount),
			'lineItem.currency': line.currency,
		}),
	);
}
const allRows = () => [...rowsOf(1), ...rowsOf(2)];

describe('Contract Sync on real procurement exports', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const sync = (
		input: IDataObject[],
		parameters: IDataObject = {},
		extra: { continueOnFail?: boolean } = {},
	) =>
		runNode(node, {
			parameters: {
				operation: 'sync',
				// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
				maxFailedPercent: 100,
				fieldsToSync: ['ref', 'vendorName', 'agreementDate', 'renewalDate'],
				lineItemFieldsToSync: ['description', 'amount', 'currency'],
				createOnlyFields: ['type'],
				filterMode: 'expression',
				filterExpression: 'externalId sw "PO-"',
				...parameters,
			} as never,
			credential,
			input,
			...extra,
		});
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));
	const writes = () => apiCalls().filter((entry) => entry.method !== 'GET');
	const stored = (externalId: string) =>
		sandbox.store.contracts.findByExternalId(externalId) as IDataObject | undefined;

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
			input: seeded,
		});
		sandbox.resetStats();
	});

	test('the clean export as text: nothing to write', async () => {
		const [items] = await sync(allRows());
		expect(items.map((item) => item.json.action)).toEqual(['unchanged', 'unchanged']);
		expect(writes()).toEqual([]);
	});

	test('rows of one contract that disagree: an error naming both rows, before anything is read', async () => {
		const input = [
			...rowsOf(1, (row) =>
				row['lineItem.externalId'] === 'L2' ? { ...row, vendorName: 'ACME Software Inc.' } : row,
			),
			...rowsOf(2),
		];
		const error = await failureOf(sync(input, { missingRecords: 'delete' }));
		expect(error.message).toBe(
			'Items 0 and 1, rows of the contract "PO-1", disagree on Vendor Name (vendorName): "Acme Software" and "ACME Software Inc.". A contract field must be the same on every row of its contract, so the contract is left as it is [item 1]',
		);
		expect(apiCalls()).toEqual([]);
		// with On Error: Continue the contract fails, is not missing, and the others are synced
		const [items] = await sync(
			[...input, ...rowsOf(2, (row) => ({ ...row, externalId: 'PO-3', ref: 'PO-1003' }))],
			{ missingRecords: 'delete', maxRemovalPercent: 100 },
			{ continueOnFail: true },
		);
		expect(items.map((item) => item.json.action ?? 'failed')).toEqual([
			'failed',
			'unchanged',
			'created',
		]);
		expect(items[0].pairedItem).toEqual({ item: 1 });
		expect(stored('PO-1')!.vendorName).toBe('Acme Software');
		expect(writes().map((call) => call.method)).toEqual(['PUT']);
	});

	test('keys padded and re-cased: rows grouped into their contract and line items matched; what is written keeps the stored keys', async () => {
		const input = [
			...rowsOf(1, (row) => ({
				...row,
				externalId: ' po-1 ',
				'lineItem.externalId': ` ${String(row['lineItem.externalId']).toLowerCase()}`,
			})),
			...rowsOf(2, (row) =>
				row['lineItem.externalId'] === 'L2'
					? { ...row, externalId: ' pO-2  ', 'lineItem.externalId': 'l2', 'lineItem.amount': '325' }
					: row,
			),
		];
		const [items] = await sync(input, { missingLineItems: 'remove', missingRecords: 'delete' });
		expect(items.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['po-1', 'unchanged'],
			['PO-2', 'updated'],
		]);
		expect(items[1].json.changes).toEqual({
			'lineItems["L2"].amount': { before: 300, after: 325 },
		});
		expect((writes()[0].body as IDataObject).externalId).toBe('PO-2');
		expect(
			((stored('PO-2')!.lineItems as IDataObject[]) ?? []).map((line) => [
				line.externalId,
				line.amount,
			]),
		).toEqual([
			['L1', 1250],
			['L2', 325],
		]);
		sandbox.resetStats();
		await sync(input, { missingLineItems: 'remove', missingRecords: 'delete' });
		expect(writes()).toEqual([]);
	});

	test('placeholder keys: a contract row with one is refused and holds removals back; a line key with one is no key', async () => {
		const [items] = await sync(
			[...rowsOf(1), { ...rowsOf(2)[0], externalId: 'N/A' }],
			{ missingRecords: 'delete', maxRemovalPercent: 100 },
			{ continueOnFail: true },
		);
		expect(items[1].json.error).toBe(
			'External ID (externalId) is "N/A", a placeholder (Placeholder Keys), not a key: the row cannot be matched to a contract [item 2]',
		);
		expect(items[2].json).toMatchObject({
			action: 'missing',
			externalId: 'PO-2',
			reason:
				'kept: 1 source row has no External ID, so which contracts the source holds is not known',
		});
		expect(writes()).toEqual([]);

		const lineKeyed = await failureOf(
			sync([...rowsOf(1, (row) => ({ ...row, 'lineItem.externalId': 'TBD' })), ...rowsOf(2)], {
				options: { placeholderKeys: 'TBD' },
			}),
		);
		expect(lineKeyed.message).toMatch(
			/^Line Item External ID \(lineItem\.externalId\) is "TBD", a placeholder \(Placeholder Keys\), on item 0: a line item of the contract "PO-1" cannot be matched without one/,
		);
	});

	test('columns: one no item carries refuses the run naming the closest; Map Columns reads the export under its own names', async () => {
		// the export names two columns its own way
		const renamed = allRows().map(({ 'lineItem.amount': amount, vendorName, ...row }) => ({
			...row,
			vendor: vendorName,
			'Line item amount': amount,
		}));
		const error = await failureOf(sync(renamed));
		expect(error.message).toBe(
			'Sync refused: no input item has Vendor Name (vendorName), Line Item Amount (lineItem.amount)',
		);
		expect(error.description).toContain(
			'Vendor Name (vendorName): the items\' vendorName is on no item (did you mean "vendor"?)\nLine Item Amount (lineItem.amount): the items\' lineItem.amount is on no item (did you mean "Line item amount"?)',
		);
		expect(apiCalls()).toEqual([]);

		// a purchasing system's export, its own column names
		const exported = allRows().map((row) => ({
			'PO Number': row.externalId,
			'PO Ref': row.ref,
			Supplier: row.vendorName,
			'Order Date': row.agreementDate,
			'Renewal Date': row.renewalDate,
			'Line ID': row['lineItem.externalId'],
			Item: row['lineItem.description'],
			'Unit Price': `$${Number(row['lineItem.amount']).toLocaleString('en-US')}.00`,
			Currency: String(row['lineItem.currency']).toLowerCase(),
		}));
		const mapping = {
			externalId: "={{ $json['PO Number'] }}",
			ref: "={{ $json['PO Ref'] }}",
			vendorName: '={{ $json.Supplier }}',
			agreementDate: "={{ $json['Order Date'] }}",
			renewalDate: "={{ $json['Renewal Date'] }}",
			'lineItem.externalId': "={{ $json['Line ID'] }}",
			'lineItem.description': '={{ $json.Item }}',
			'lineItem.amount': "={{ $json['Unit Price'] }}",
			'lineItem.currency': '={{ $json.Currency }}',
		};
		const mapped = {
			sourceColumns: 'map',
			createOnlyFields: [],
			syncColumns: { mappingMode: 'defineBelow', value: mapping },
		};
		const [items] = await sync(exported, mapped);
		expect(items.map((item) => item.json.action)).toEqual(['unchanged', 'unchanged']);
		expect(writes()).toEqual([]);
		const misread = await failureOf(
			sync(exported, {
				...mapped,
				syncColumns: {
					mappingMode: 'defineBelow',
					value: { ...mapping, 'lineItem.amount': "={{ $json['Unit price'] }}" },
				},
			}),
		);
		expect(misread.message).toBe(
			'Sync refused: no input item has Line Item Amount (lineItem.amount)',
		);
		expect(misread.description).toContain('(did you mean "Unit Price"?)');
	});

	test("the export's formats: amounts with separators and signs, day-first dates, codes in lower case; a locale date read as ISO is refused saying what to set", async () => {
		const local = (row: IDataObject) => ({
			...row,
			agreementDate: '15/01/2025',
			renewalDate: '15.01.2026',
			'lineItem.amount': `${Number(row['lineItem.amount']).toLocaleString('de-DE')},00 €`,
			'lineItem.currency': 'usd',
		});
		const input = [...rowsOf(1, local), ...rowsOf(2, local)];
		const [items] = await sync(input, {
			options: { dateFormat: 'dayFirst', numberFormat: 'commaDecimal' },
		});
		expect(items.map((item) => item.json.action)).toEqual(['unchanged', 'unchanged']);
		expect(writes()).toEqual([]);
		sandbox.resetStats();
		const refused = await failureOf(sync(input, { options: { numberFormat: 'commaDecimal' } }));
		expect(refused.message).toBe(
			'Invalid source row: Agreement Date (agreementDate) expected a date as YYYY-MM-DD, got "15/01/2025" (a day-first or month-first date: set the Date Format option) (and 1 more) [item 0]',
		);
		const amounts = await failureOf(sync(input, { options: { dateFormat: 'dayFirst' } }));
		expect(amounts.message).toBe(
			'Invalid source row: Line Item Amount (lineItem.amount) expected a number, zero or more, got "1.250,00 €" (it reads as a number written 1.234,56: set the Number Format option) [item 0]',
		);
		expect(apiCalls()).toEqual([]);
	});

	test('an absent column leaves the field as it is, an empty cell clears it; clearing is guarded', async () => {
		const absent = allRows().map(({ renewalDate: _gone, ...row }) => ({ ...row }));
		// the column is on one row only: the others leave the field as it is
		absent[0].renewalDate = '2026-01-15';
		const [kept] = await sync(absent);
		expect(kept.map((item) => item.json.action)).toEqual(['unchanged', 'unchanged']);
		const empty = allRows().map((row) => ({ ...row, renewalDate: '' }));
		const guarded = await failureOf(sync(empty));
		expect(guarded.message).toBe(
			'Sync stopped by its guard: it would empty Renewal Date (renewalDate) on 2 of the 2 contracts in scope (100 %), more than Max Cleared per Field allows (0: 10 % of the scope)',
		);
		expect(writes()).toEqual([]);
		const [cleared] = await sync(empty, { maxClearPercent: 100 });
		expect(cleared[0].json.changes).toEqual({
			renewalDate: { before: '2026-01-15', after: null },
		});
		expect(stored('PO-1')).not.toHaveProperty('renewalDate');
	});

	test('the clear guard counts a contract once per field, however many of its line items lose it', async () => {
		const noCurrency = (row: IDataObject) => ({ ...row, 'lineItem.currency': '' });
		// both line items of PO-1 lose their currency: one contract of the two (50 %) is allowed
		const [items] = await sync([...rowsOf(1, noCurrency), ...rowsOf(2)], {
			maxClearPercent: 50,
			dryRun: true,
		});
		expect(items[0].json).toMatchObject({ action: 'update' });
		expect(items[0].json).not.toHaveProperty('wouldBeRefused');
		const guarded = await failureOf(
			sync([...rowsOf(1, noCurrency), ...rowsOf(2, noCurrency)], { maxClearPercent: 50 }),
		);
		expect(guarded.message).toBe(
			'Sync stopped by its guard: it would empty Line Item Currency (lineItem.currency) on 2 of the 2 contracts in scope (100 %), more than Max Cleared per Field allows (1: 50 % of the scope)',
		);
		expect(writes()).toEqual([]);
	});

	test('scope: one that gives no filter is refused; None owns every contract', async () => {
		const manual = await failureOf(sync(allRows(), { filterMode: 'manual' }));
		expect(manual.message).toBe(
			'Sync refused: the scope is empty (Build Manually has no condition)',
		);
		const expression = await failureOf(sync(allRows(), { filterExpression: '  ' }));
		expect(expression.message).toBe(
			'Sync refused: the scope is empty (the Filter Expression is empty)',
		);
		expect(apiCalls()).toEqual([]);
		const [[summary]] = await sync(allRows(), {
			filterMode: 'none',
			dryRun: true,
			options: { output: 'summary' },
		});
		expect(summary.json).toMatchObject({
			unchanged: 2,
			missing: sandbox.store.contracts.size - 2,
			scope: sandbox.store.contracts.size,
		});
		// a scope by line item: the contracts having a line item described "Support"
		const [byLine] = await sync(rowsOf(1), {
			filterMode: 'manual',
			listConditions: {
				condition: [{ field: 'description', operator: 'eq', value: 'Support' }],
			},
			dryRun: true,
		});
		expect(byLine.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['PO-1', 'unchanged'],
			['PO-2', 'missing'],
		]);
	});

	test('duplicates at scale: 20,000 items on one key, 20,000 rows on one line key; each error names a few items and a count (how fast: npm run bench)', async () => {
		const many = 20_000;
		const contracts = Array.from({ length: many }, () => ({
			externalId: 'PO-1',
			ref: 'PO-1001',
			type: 'PurchaseOrder',
			vendorName: 'Acme Software',
			agreementDate: '2025-01-15',
			renewalDate: '2026-01-15',
			lineItems: [],
		}));
		const [items] = await sync(contracts, { inputShape: 'contracts' }, { continueOnFail: true });
		expect(items[0].json.error).toBe(
			'External ID (externalId) "PO-1" is in items 0, 1, 2 and 19,997 more of the input (case and spaces aside): each key may appear once [item 0]',
		);
		expect(Math.max(...items.map((item) => String(item.json.error ?? '').length))).toBeLessThan(
			300,
		);

		const rows = Array.from({ length: many }, () => rowsOf(1)[0]);
		const line = await failureOf(sync(rows));
		expect(line.message).toBe(
			'Line Item External ID (lineItem.externalId) "L1" is on items 0, 1, 2 and 19,997 more of the contract "PO-1" (case and spaces aside): each line item may appear once in its contract, so the contract is left as it is [item 1]',
		);
		expect(writes()).toEqual([]);
	});

	test('a new contract whose External ID is outside the scope is never created again or replaced', async () => {
		const outside = sandbox.store.contracts
			.all()
			.find((contract) => contract.externalId !== 'PO-1' && contract.externalId !== 'PO-2')!;
		const [items] = await sync(
			[...allRows(), ...rowsOf(1, (row) => ({ ...row, externalId: String(outside.externalId) }))],
			{},
			{ continueOnFail: true },
		);
		expect(items[2].json.error).toBe(
			`A contract with External ID "${String(outside.externalId)}" exists outside the scope (id ${outside.id}): it is left as it is. Widen the scope to include it, or correct the source. [item 4]`,
		);
		expect(writes()).toEqual([]);
	});

	test('bad values name the field and the row; a new contract missing a field it needs names it; Type in words is read', async () => {
		const [items] = await sync(
			[
				...rowsOf(1, (row) =>
					row['lineItem.externalId'] === 'L2' ? { ...row, 'lineItem.amount': 'twelve' } : row,
				),
				...rowsOf(2),
				{ ...rowsOf(2)[0], externalId: 'PO-7', ref: '' },
				{ ...rowsOf(2)[0], externalId: 'PO-8', ref: 'PO-1008', type: 'purchase order' },
			],
			{ missingRecords: 'delete', maxRemovalPercent: 100 },
			{ continueOnFail: true },
		);
		expect(items.map((item) => item.json.error ?? item.json.action)).toEqual([
			'Invalid source row: Line Item Amount (lineItem.amount) expected a number, zero or more, got "twelve" [item 1]',
			'unchanged',
			'Invalid source row: Reference (ref) is required and cannot be cleared [item 4]',
			'created',
		]);
		expect(stored('PO-8')).toMatchObject({ type: 'PurchaseOrder' });
		expect(stored('PO-1')).toBeDefined();
	});

	test('fields set only when creating are never compared or written on existing contracts', async () => {
		const [items] = await sync(allRows().map((row) => ({ ...row, type: 'MSA' })));
		expect(items.map((item) => item.json.action)).toEqual(['unchanged', 'unchanged']);
		expect(writes()).toEqual([]);
	});

	test('a contract in scope with two line items of one External ID (case aside) is left as it is, saying why', async () => {
		const po2 = stored('PO-2')!;
		sandbox.store.contracts.put({
			...po2,
			lineItems: [...(po2.lineItems as IDataObject[]), { externalId: 'l1', description: 'Twin' }],
		});
		const [items] = await sync(allRows(), {}, { continueOnFail: true });
		expect(items[1].json.error).toBe(
			'The contract "PO-2" in scope: two of its line items have External ID "l1" (case and spaces aside): which one the source means is not clear, so it is left as it is [item 2]',
		);
		expect(writes()).toEqual([]);
	});

	test('Apply Only Plan: the approved plan applies; a register changed since the approval is refused with nothing written', async () => {
		const input = allRows().map((row) => ({ ...row, 'lineItem.amount': '999' }));
		const [planned] = await sync(input, { dryRun: true });
		const approved = planned[0].json.planId as string;
		sandbox.store.contracts.put({ ...stored('PO-1')!, vendorName: 'Renamed by hand' } as never);
		sandbox.resetStats();
		const error = await failureOf(sync(input, { applyOnlyPlan: approved }));
		expect(error.message).toMatch(/^Sync refused: the plan is not the one approved/);
		expect(writes()).toEqual([]);
		const [again] = await sync(input, { dryRun: true });
		const [applied] = await sync(input, { applyOnlyPlan: again[0].json.planId });
		expect(applied.map((item) => item.json.action)).toEqual(['updated', 'updated']);
	});

	test('an empty source against a scope that holds contracts is refused unless allowed', async () => {
		const error = await failureOf(sync([], { missingRecords: 'delete', maxRemovalPercent: 100 }));
		expect(error.message).toBe('Sync refused: the input is empty, and the scope holds 2 contracts');
		expect(writes()).toEqual([]);
	});
});
