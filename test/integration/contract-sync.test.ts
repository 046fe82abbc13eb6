import type { IDataObject } from 'n8n-workflow';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runNode, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * Contract Sync against the sandbox over real HTTP (issue 34). The register holds four contracts
 * of a procurement source (External IDs PO-1 to PO-4) with fields and line items the source does
 * not own (notes, a line's notes, documents, a line entered by hand without External ID). The
 * expectations are written by hand from the issue and the service's rules (service-api.md §2.3,
 * service-behaviour.md §5), not computed by the code under test.
 */

const node = new StockroomContract();

const seeded: IDataObject[] = [
	{
		externalId: 'PO-1',
		ref: 'PO-1001',
		type: 'PurchaseOrder',
		vendorName: 'Acme Software',
		agreementDate: '2025-01-15',
		renewalDate: '2026-01-15',
		notes: 'negotiated by hand',
		lineItems: [
			{ externalId: 'L1', description: 'Seats', unitCount: 50, amount: 12, currency: 'USD' },
			{ externalId: 'L2', description: 'Support', amount: 1200, notes: 'billed yearly' },
		],
		documents: [{ linkUrl: 'https://docs.example/po-1.pdf', description: 'Signed order form' }],
	},
	{
		externalId: 'PO-2',
		ref: 'PO-1002',
		type: 'OrderForm',
		vendorName: 'Globex',
		agreementDate: '2025-02-01',
		lineItems: [
			{ externalId: 'L1', description: 'Platform', amount: 5000, currency: 'EUR' },
			{ externalId: 'L2', description: 'Add-on', amount: 300, currency: 'EUR' },
			{ externalId: 'L3', description: 'Training', amount: 800, currency: 'EUR' },
		],
	},
	{
		externalId: 'PO-3',
		ref: 'PO-1003',
		type: 'PurchaseOrder',
		vendorName: 'Initech',
		agreementDate: '2025-03-10',
		lineItems: [
			{ externalId: 'L1', description: 'Licences', unitCount: 10, amount: 99 },
			{ description: 'Entered by hand', amount: 1 },
		],
	},
	{
		externalId: 'PO-4',
		ref: 'PO-1004',
		type: 'MSA',
		vendorName: 'Umbrella',
		agreementDate: '2024-11-30',
		lineItems: [{ externalId: 'L1', description: 'Hosting', amount: 700 }],
	},
];

/** The export's rows of a seeded contract: its owned fields on each of its line items' rows. */
function rowsOf(
	n: number,
	change: (row: IDataObject) => IDataObject = (row) => row,
): IDataObject[] {
	const { externalId, ref, type, vendorName, agreementDate, lineItems } = seeded[n - 1];
	return (lineItems as IDataObject[])
		.filter((line) => line.externalId !== undefined)
		.map((line) =>
			change({
				externalId,
				ref,
				type,
				vendorName,
				agreementDate,
				'lineItem.externalId': line.externalId,
				'lineItem.description': line.description,
				'lineItem.amount': line.amount,
			}),
		);
}

const OWNED = {
	fieldsToSync: ['ref', 'vendorName', 'agreementDate'],
	lineItemFieldsToSync: ['description', 'amount'],
	createOnlyFields: ['type'],
};

describe('Contract Sync against the sandbox', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	const sync = (
		input: IDataObject[],
		parameters: IDataObject = {},
		extra: { continueOnFail?: boolean; asTool?: boolean } = {},
	) =>
		runNode(node, {
			parameters: {
				operation: 'sync',
				// the rows' own refusals are what these tests are about; Max Failed Rows (the night's) is tested apart
				maxFailedPercent: 100,
				...OWNED,
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
	const lines = (externalId: string) =>
		(stored(externalId)!.lineItems as IDataObject[]).map(
			({ baseAmount: _a, baseCurrency: _c, ...line }) => line,
		);
	const snapshot = () => JSON.stringify(sandbox.store.contracts.all());

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

	test('rows per line item: created, updated (a field, a line, a new line), unchanged and missing (Keep); each changed contract read just before its one write', async () => {
		const input = [
			...rowsOf(1, (row) =>
				row['lineItem.externalId'] === 'L1' ? { ...row, 'lineItem.amount': 11 } : row,
			),
			...rowsOf(2, (row) => ({ ...row, vendorName: 'Globex Corporation' })),
			{
				...rowsOf(2)[0],
				vendorName: 'Globex Corporation',
				'lineItem.externalId': 'L4',
				'lineItem.description': 'Premium support',
				'lineItem.amount': 450,
			},
			...rowsOf(3),
			{
				externalId: 'PO-9',
				ref: 'PO-1009',
				type: 'PurchaseOrder',
				vendorName: 'Hooli',
				agreementDate: '2025-06-01',
				'lineItem.externalId': 'A',
				'lineItem.description': 'Cloud credits',
				'lineItem.amount': 2500,
			},
		];
		const [items] = await sync(input);
		expect(items.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['PO-1', 'updated'],
			['PO-2', 'updated'],
			['PO-3', 'unchanged'],
			['PO-9', 'created'],
			['PO-4', 'missing'],
		]);
		const byKey = Object.fromEntries(items.map((item) => [item.json.externalId, item.json]));
		expect(byKey['PO-1'].changes).toEqual({
			'lineItems["L1"].amount': { before: 12, after: 11 },
		});
		expect(byKey['PO-2'].changes).toEqual({
			vendorName: { before: 'Globex', after: 'Globex Corporation' },
			'lineItems["L4"]': {
				before: null,
				after: { externalId: 'L4', description: 'Premium support', amount: 450 },
			},
		});
		expect(byKey['PO-9'].changes).toEqual({
			externalId: { before: null, after: 'PO-9' },
			ref: { before: null, after: 'PO-1009' },
			vendorName: { before: null, after: 'Hooli' },
			agreementDate: { before: null, after: '2025-06-01' },
			type: { before: null, after: 'PurchaseOrder' },
			'lineItems["A"]': {
				before: null,
				after: { externalId: 'A', description: 'Cloud credits', amount: 2500 },
			},
		});
		// each output item is paired with every row of its contract
		expect(items.map((item) => item.pairedItem)).toEqual([
			[{ item: 0 }, { item: 1 }],
			[{ item: 2 }, { item: 3 }, { item: 4 }, { item: 5 }],
			{ item: 6 },
			{ item: 7 },
			{ item: 0 },
		]);
		expect(byKey['PO-1']).toMatchObject({ name: 'Acme Software', id: stored('PO-1')!.id });

		// one walk (and the read that confirms its end), one lookup of the new External ID outside
		// the scope, then per changed contract a read by id just before its write, and the new
		// contract's PUT
		const calls = apiCalls().map((call) => `${call.method} ${call.path}`);
		expect(calls.slice(0, 3)).toEqual([
			'GET /api/contracts/v1',
			'GET /api/contracts/v1',
			'GET /api/contracts/v1',
		]);
		expect(calls.slice(3).sort()).toEqual(
			[
				`GET /api/contracts/v1/${String(stored('PO-1')!.id)}`,
				`GET /api/contracts/v1/${String(stored('PO-2')!.id)}`,
				'PUT /api/contracts/v1',
				'PUT /api/contracts/v1',
				'PUT /api/contracts/v1',
			].sort(),
		);
		for (const id of [stored('PO-1')!.id, stored('PO-2')!.id]) {
			const at = calls.indexOf(`GET /api/contracts/v1/${String(id)}`);
			expect(calls[at + 1]).toBe('PUT /api/contracts/v1');
		}

		// what the source does not own stays: notes, documents, a line's notes, the line
		// entered by hand, the line the source has no more (Line Items: Keep)
		expect(stored('PO-1')).toMatchObject({
			notes: 'negotiated by hand',
			renewalDate: '2026-01-15T00:00:00Z',
			documents: seeded[0].documents,
		});
		expect(lines('PO-1')).toEqual([
			{ externalId: 'L1', description: 'Seats', unitCount: 50, amount: 11, currency: 'USD' },
			{ externalId: 'L2', description: 'Support', amount: 1200, notes: 'billed yearly' },
		]);
		expect(lines('PO-2').map((line) => line.externalId)).toEqual(['L1', 'L2', 'L3', 'L4']);
		expect(lines('PO-3')).toEqual(seeded[2].lineItems);
		expect(stored('PO-9')).toMatchObject({ vendorName: 'Hooli', type: 'PurchaseOrder' });
		expect(stored('PO-4')).toBeDefined();

		// a second run writes nothing
		sandbox.resetStats();
		const [again] = await sync(input);
		expect(writes()).toEqual([]);
		// the walk and the read that confirms its end
		expect(apiCalls()).toHaveLength(2);
		expect(again.map((item) => item.json.action)).toEqual([
			'unchanged',
			'unchanged',
			'unchanged',
			'unchanged',
			'missing',
		]);
	});

	test('Line Items: Remove takes out the lines the source no longer has; Missing Records: Delete deletes the contracts it no longer has', async () => {
		const input = [
			...rowsOf(1).filter((row) => row['lineItem.externalId'] === 'L1'),
			...rowsOf(2).filter((row) => row['lineItem.externalId'] !== 'L2'),
			...rowsOf(3),
		];
		const [kept] = await sync(input, { missingRecords: 'keep', missingLineItems: 'keep' });
		expect(kept.map((item) => item.json.action)).toEqual([
			'unchanged',
			'unchanged',
			'unchanged',
			'missing',
		]);
		expect(writes()).toEqual([]);

		sandbox.resetStats();
		const [items] = await sync(input, {
			missingRecords: 'delete',
			missingLineItems: 'remove',
			maxRemovalPercent: 50,
		});
		expect(items.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['PO-1', 'updated'],
			['PO-2', 'updated'],
			['PO-3', 'unchanged'],
			['PO-4', 'deleted'],
		]);
		expect(items[0].json.changes).toEqual({
			'lineItems["L2"]': {
				before: { externalId: 'L2', description: 'Support', amount: 1200 },
				after: null,
			},
		});
		expect(lines('PO-1')).toEqual([
			{ externalId: 'L1', description: 'Seats', unitCount: 50, amount: 12, currency: 'USD' },
		]);
		expect(lines('PO-2').map((line) => line.externalId)).toEqual(['L1', 'L3']);
		// the line entered by hand (no External ID) is never the source's to remove
		expect(lines('PO-3')).toEqual(seeded[2].lineItems);
		expect(stored('PO-4')).toBeUndefined();
		expect(
			writes()
				.map((call) => call.method)
				.sort(),
		).toEqual(['DELETE', 'PUT', 'PUT']);
		// the PUT sends every line kept: the service removes a line whose External ID is left out
		const put = writes().find(
			(call) => call.method === 'PUT' && (call.body as IDataObject).externalId === 'PO-2',
		)!;
		expect(
			((put.body as IDataObject).lineItems as IDataObject[]).map((line) => line.externalId),
		).toEqual(['L1', 'L3']);
	});

	test('one item per contract with its line items nested: the same plan as the rows give', async () => {
		const nested = (n: number, change: (line: IDataObject) => IDataObject = (line) => line) => {
			const [first, ...rest] = rowsOf(n);
			return {
				externalId: first.externalId,
				ref: first.ref,
				type: first.type,
				vendorName: first.vendorName,
				agreementDate: first.agreementDate,
				lineItems: [first, ...rest].map((row) =>
					change({
						externalId: row['lineItem.externalId'],
						description: row['lineItem.description'],
						amount: row['lineItem.amount'],
					}),
				),
			};
		};
		const input = [
			nested(1, (line) => (line.externalId === 'L1' ? { ...line, amount: 11 } : line)),
			{ ...nested(2), vendorName: 'Globex Corporation' },
			nested(3),
		];
		const [planned] = await sync(input, { inputShape: 'contracts', dryRun: true });
		const rows = [
			...rowsOf(1, (row) =>
				row['lineItem.externalId'] === 'L1' ? { ...row, 'lineItem.amount': 11 } : row,
			),
			...rowsOf(2, (row) => ({ ...row, vendorName: 'Globex Corporation' })),
			...rowsOf(3),
		];
		const [fromRows] = await sync(rows, { dryRun: true });
		// the same plan; its basis (the input as read, the Input Shape) is another
		const plan = (item: { json: IDataObject }) => String(item.json.planId).replace(/-t.*$/, '');
		expect(planned.map(plan)).toEqual(fromRows.map(plan));
		expect(
			planned.map((item) => [item.json.externalId, item.json.action, item.json.changes]),
		).toEqual(fromRows.map((item) => [item.json.externalId, item.json.action, item.json.changes]));
		expect(planned.map((item) => item.json.action)).toEqual([
			'update',
			'update',
			'unchanged',
			'missing',
		]);
		expect(writes()).toEqual([]);

		await sync(input, { inputShape: 'contracts' });
		expect(lines('PO-1')[0]).toMatchObject({ externalId: 'L1', amount: 11 });
		expect(stored('PO-2')!.vendorName).toBe('Globex Corporation');
		// a contract item without lineItems (Field Missing From an Item: Leave As Is) keeps its lines
		sandbox.resetStats();
		const { lineItems: _lines, ...withoutLines } = nested(1);
		const [items] = await sync([withoutLines, input[1], nested(3)], {
			inputShape: 'contracts',
			missingLineItems: 'remove',
		});
		expect(items[0].json.action).toBe('unchanged');
		expect(writes()).toEqual([]);
	});

	test('line items without External ID are refused unless the source owns the whole list, which they then replace', async () => {
		const anonymous = (n: number) =>
			rowsOf(n).map(({ 'lineItem.externalId': _key, ...row }) => row);
		const [refused] = await sync(
			[...anonymous(1), ...rowsOf(2), ...rowsOf(3)],
			{},
			{ continueOnFail: true },
		);
		expect(refused[0]).toEqual({
			json: {
				error:
					'Line Item External ID (lineItem.externalId) is empty on item 0: a line item of the contract "PO-1" cannot be matched without one, so the contract is left as it is. If the source owns each contract\'s whole list of line items, turn on Source Owns the Whole Line Item List [item 0]',
				message: 'Row PO-1 (Acme Software)',
			},
			pairedItem: { item: 0 },
		});
		// the contract is not missing: its rows name it
		expect(refused.map((item) => item.json.action ?? 'failed')).toEqual([
			'failed',
			'unchanged',
			'unchanged',
			'missing',
		]);
		expect(writes()).toEqual([]);

		// the source owns the whole list, but has only PO-3's line with an External ID: the
		// service cannot remove the line entered by hand without clearing the list, so it stays,
		// and the output says why
		sandbox.resetStats();
		const [keyedOnly] = await sync([...rowsOf(1), ...rowsOf(2), ...rowsOf(3)], {
			wholeLineItemList: true,
		});
		expect(keyedOnly[2].json).toMatchObject({
			externalId: 'PO-3',
			action: 'unchanged',
			reason:
				'kept: 1 line item without External ID, which the service removes only when a write sends line items without External ID or no line item at all',
		});
		expect(writes()).toEqual([]);

		// the source owns the whole list: PO-3's lines become exactly the source's
		sandbox.resetStats();
		const input = [
			...rowsOf(1),
			...rowsOf(2),
			{
				...rowsOf(3)[0],
				'lineItem.externalId': '',
				'lineItem.description': 'Licences',
				'lineItem.amount': 99,
			},
			{
				...rowsOf(3)[0],
				'lineItem.externalId': '',
				'lineItem.description': 'Onboarding',
				'lineItem.amount': 250,
			},
		];
		const [owned] = await sync(input, { wholeLineItemList: true, maxRemovalPercent: 50 });
		expect(owned.map((item) => [item.json.externalId, item.json.action])).toEqual([
			['PO-1', 'unchanged'],
			['PO-2', 'unchanged'],
			['PO-3', 'updated'],
			['PO-4', 'missing'],
		]);
		expect(owned[2].json.changes).toEqual({
			'lineItems["L1"]': {
				before: { externalId: 'L1', description: 'Licences', amount: 99 },
				after: null,
			},
			'lineItems[without External ID]': {
				before: [{ description: 'Entered by hand', amount: 1 }],
				after: [
					{ description: 'Licences', amount: 99 },
					{ description: 'Onboarding', amount: 250 },
				],
			},
		});
		expect(lines('PO-3')).toEqual([
			{ description: 'Licences', amount: 99 },
			{ description: 'Onboarding', amount: 250 },
		]);
		sandbox.resetStats();
		await sync(input, { wholeLineItemList: true });
		expect(writes()).toEqual([]);
	});

	test("documents stay unless the source owns them; owned, they are the source's", async () => {
		const before = stored('PO-1')!.documents;
		const input = [...rowsOf(1), ...rowsOf(2), ...rowsOf(3), ...rowsOf(4)].map((row) => ({
			...row,
			documents: `https://docs.example/${String(row.externalId).toLowerCase()}-terms.pdf`,
		}));
		await sync(input);
		expect(writes()).toEqual([]);
		expect(stored('PO-1')!.documents).toEqual(before);

		const [items] = await sync(input, {
			fieldsToSync: [...OWNED.fieldsToSync, 'documents'],
		});
		expect(items[0].json.changes).toEqual({
			documents: {
				before: [{ linkUrl: 'https://docs.example/po-1.pdf', description: 'Signed order form' }],
				after: [{ linkUrl: 'https://docs.example/po-1-terms.pdf' }],
			},
		});
		expect(stored('PO-1')!.documents).toEqual([{ linkUrl: 'https://docs.example/po-1-terms.pdf' }]);
		// the rest of the contract as it was: its line items, its notes
		expect(lines('PO-1')).toEqual(seeded[0].lineItems);
		expect(stored('PO-1')!.notes).toBe('negotiated by hand');
	});

	test('Dry Run: the same output and plan id as the run, and the request log shows no write', async () => {
		const input = [
			...rowsOf(1, (row) => ({ ...row, ref: 'PO-1001-A' })),
			...rowsOf(2).slice(1),
			...rowsOf(3),
		];
		const parameters = {
			missingRecords: 'delete',
			missingLineItems: 'remove',
			maxRemovalPercent: 50,
		};
		const before = snapshot();
		const [planned] = await sync(input, { ...parameters, dryRun: true });
		expect(writes()).toEqual([]);
		expect(snapshot()).toBe(before);
		expect(planned.map((item) => item.json.action)).toEqual([
			'update',
			'update',
			'unchanged',
			'delete',
		]);
		expect(planned[0].json.planId).toMatch(
			/^p2-c0-u2-s0-r0-d1-m0-f0-[0-9a-f]{16}-t[0-9a-z]+-o[0-9a-f]{6}-i[0-9a-f]{6}-g[0-9a-f]{6}$/,
		);
		const [done] = await sync(input, parameters);
		const strip = (items: typeof done) =>
			items.map(({ json: { dryRun: _d, action: _a, ...rest } }) => rest);
		expect(strip(planned)).toEqual(strip(done));
		expect(done.map((item) => item.json.action)).toEqual([
			'updated',
			'updated',
			'unchanged',
			'deleted',
		]);
	});

	test('the guard counts removed line items: above Max Removals nothing is written, a dry run shows the plan and says so', async () => {
		// the export lost every PO-2 row but the first: 2 of the 7 line items in scope (28.6 %)
		const input = [...rowsOf(1), rowsOf(2)[0], ...rowsOf(3), ...rowsOf(4)];
		const error = await failureOf(sync(input, { missingLineItems: 'remove' }));
		expect(error.message).toBe(
			'Sync stopped by its guard: it would remove 2 of the 8 line items of the contracts in scope (25 %), more than Max Removals allows (0: 10 % of them): PO-2 L2, PO-2 L3',
		);
		expect(error.description).toMatch(/^Nothing was written\./);
		expect(writes()).toEqual([]);
		const [[summary]] = await sync(input, {
			missingLineItems: 'remove',
			dryRun: true,
			options: { output: 'summary' },
		});
		expect(summary.json).toMatchObject({
			updated: 1,
			unchanged: 3,
			dryRun: true,
			wouldBeRefused: error.message,
		});
		// deleting contracts is guarded as on every Sync
		const deletions = await failureOf(sync(rowsOf(1), { missingRecords: 'delete' }));
		expect(deletions.message).toBe(
			'Sync stopped by its guard: it would delete 3 of the 4 contracts in scope (75 %), more than Max Removals allows (0: 10 % of the scope is 0)',
		);
		expect(writes()).toEqual([]);
	});

	test('each changed contract is read just before its write: a change made after the walk is kept', async () => {
		const po2 = stored('PO-2')!;
		// calls: the walk, PO-1's read, PO-1's write (held up), then PO-2's read and write
		sandbox.failNext(1, 'slow', 2);
		const running = sync([
			...rowsOf(1, (row) => ({ ...row, ref: 'PO-1001-B' })),
			...rowsOf(2, (row) => ({ ...row, ref: 'PO-1002-B' })),
			...rowsOf(3),
			...rowsOf(4),
		]);
		let settled = false;
		void running.then(
			() => (settled = true),
			() => (settled = true),
		);
		while (!settled && !sandbox.journal().some((call) => call.fault === 'slow'))
			await new Promise((resolve) => setTimeout(resolve, 5));
		sandbox.store.contracts.put({ ...po2, notes: 'changed meanwhile' });
		await running;
		expect(stored('PO-2')).toMatchObject({ ref: 'PO-1002-B', notes: 'changed meanwhile' });
	});

	test('Report: the changes of contracts and their line items, in words', async () => {
		const input = [
			...rowsOf(1, (row) =>
				row['lineItem.externalId'] === 'L1' ? { ...row, 'lineItem.amount': 11 } : row,
			),
			...rowsOf(2),
			...rowsOf(3),
			...rowsOf(4),
		];
		const [[report]] = await sync(input, { dryRun: true, options: { output: 'report' } });
		expect(report.json.subject).toBe('Sync plan: would update 1');
		expect(report.json.markdown).toContain(
			'*Would update (1)*\n- Acme Software (PO-1): Line Item L1 Amount 12 → 11',
		);
	});

	test('as an AI tool it proposes: a dry run, nothing written, unless set to apply an approved plan id', async () => {
		const input = [
			...rowsOf(1, (row) => ({ ...row, ref: 'PO-1001-T' })),
			...rowsOf(2),
			...rowsOf(3),
			...rowsOf(4),
		];
		const [proposed] = await sync(input, {}, { asTool: true });
		expect(proposed.map((item) => [item.json.action, item.json.dryRun])).toEqual([
			['update', true],
			['unchanged', true],
			['unchanged', true],
			['unchanged', true],
		]);
		expect(writes()).toEqual([]);
		const [applied] = await sync(
			input,
			{ toolMode: 'apply', applyOnlyPlan: proposed[0].json.planId },
			{ asTool: true },
		);
		expect(applied[0].json).toMatchObject({ action: 'updated', dryRun: false });
		expect(stored('PO-1')!.ref).toBe('PO-1001-T');
	});
});
