import type { IDataObject } from 'n8n-workflow';
import { StockroomAsset } from '../../nodes/StockroomAsset/StockroomAsset.node';
import { StockroomContract } from '../../nodes/StockroomContract/StockroomContract.node';
import { assetSyncSuite } from '../helpers/assetSync';
import { runNode } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';

/**
 * Issue 39: one configuration. A Sync dry run's Summary or Report carries its plan; Apply Sync
 * Plan writes exactly that plan, with none of the Sync's settings, once every record it touches
 * is as the dry run read it; the person's approval lifts the guard for that plan only. Over real
 * HTTP, expectations written by hand.
 */

const assets = new StockroomAsset();
const contracts = new StockroomContract();

/** Five devices of this source, each assigned to someone. */
const seeded = [1, 2, 3, 4, 5].map((n) => ({
	externalId: `APPLY-${n}`,
	deviceName: `Laptop ${n}`,
	status: 'Deployed',
	hardwareVendor: 'Lenovo',
	serialNumber: `AP-${n}`,
	assignedToEmail: `person${n}@northwind.example`,
}));
const row = (n: number, changes: IDataObject = {}): IDataObject => ({
	externalId: `APPLY-${n}`,
	deviceName: `Laptop ${n}`,
	hardwareVendor: 'Lenovo',
	serialNumber: `AP-${n}`,
	status: 'Deployed',
	...changes,
});
/** Tonight: Laptop 2 renamed, a new device, APPLY-4 and APPLY-5 gone. */
const tonight = () => [row(1), row(2, { deviceName: 'Laptop 2 (new board)' }), row(3), row(6)];

describe('Apply Sync Plan: the approved plan, with no second configuration (issue 39)', () => {
	const suite = assetSyncSuite(seeded, {
		fieldsToSync: ['deviceName', 'hardwareVendor', 'serialNumber'],
		createOnlyFields: ['status'],
		filterMode: 'expression',
		filterExpression: 'externalId sw "APPLY-"',
		missingRecords: 'setStatus',
		options: { output: 'report' },
	});
	const { writes } = suite;
	const plan = async () => {
		const [[report]] = await suite.sync(tonight(), { dryRun: true });
		return report.json;
	};
	const apply = (approvedPlan: unknown, extra: { continueOnFail?: boolean } = {}) =>
		runNode(assets, {
			parameters: { operation: 'applyPlan', approvedPlan, options: {} } as never,
			credential: suite.credential,
			input: [{ decision: 'approve' }],
			...extra,
		});

	test('the dry run carries its plan; Apply Sync Plan writes exactly it, the guard lifted by the approval', async () => {
		const report = await plan();
		// 2 of 5 retired is more than Max Removals allows (10 %): a run would be refused
		expect(report).toMatchObject({
			wouldBeRefusedBy: 'guard',
			plan: { carried: 1, resource: 'asset', planId: report.planId, keyField: 'externalId' },
		});
		const carried = report.plan as IDataObject;
		expect((carried.entries as IDataObject[]).map((entry) => [entry.action, entry.key])).toEqual([
			['updated', 'APPLY-2'],
			['created', 'APPLY-6'],
			['retired', 'APPLY-4'],
			['retired', 'APPLY-5'],
		]);
		expect(writes()).toEqual([]);

		const [items] = await apply(carried);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			subject: 'Sync done: created 1, updated 1, retired 2',
			planId: report.planId,
			dryRun: false,
			created: 1,
			updated: 1,
			retired: 2,
		});
		// paired with the approval, not with the dry run's rows
		expect(items[0].pairedItem).toEqual([{ item: 0 }]);
		expect(
			writes()
				.map((call) => call.method)
				.sort(),
		).toEqual(['PATCH', 'PATCH', 'PATCH', 'PUT']);
		expect(suite.stored('APPLY-2')!.deviceName).toBe('Laptop 2 (new board)');
		expect(suite.stored('APPLY-6')).toMatchObject({ status: 'Deployed', serialNumber: 'AP-6' });
		expect([suite.stored('APPLY-4')!.status, suite.stored('APPLY-5')!.status]).toEqual([
			'Retired',
			'Retired',
		]);
		// the Sync, run again, has nothing left to do
		suite.sandbox.resetStats();
		const [[again]] = await suite.sync(tonight(), { options: { output: 'summary' } });
		expect(again.json).toMatchObject({ created: 0, updated: 0, retired: 0 });
		expect(writes()).toEqual([]);
	});

	test('a record the plan touches was edited since the dry run: nothing is written, the refusal names it and who edited it', async () => {
		const carried = (await plan()).plan;
		await suite.person.editAsset('APPLY-4', {
			assignedToEmail: 'bob@example.com',
			notes: 'Re-issued to Bob, keep',
		});
		suite.sandbox.resetStats();
		const error = await failureOf(apply(carried));
		expect(error.message).toMatch(
			/^Apply Sync Plan refused: the register changed since the dry run: APPLY-4 \("Laptop 4" · bob@example\.com\) was edited since the dry run \(modified \S+ by service-desk \(API client\)\)$/,
		);
		expect(error.description).toMatch(/^Nothing was written\./);
		expect(writes()).toEqual([]);
		expect(suite.stored('APPLY-4')!.status).toBe('Deployed');
		// with On Error: Continue it is one error item saying that nothing was written
		const [items] = await apply(carried, { continueOnFail: true });
		expect(items.map((item) => Object.keys(item.json).sort())).toEqual([['error', 'message']]);
		expect(items[0].json.message).toMatch(/^Nothing was written\. A person approved the plan/);
		expect(writes()).toEqual([]);
	});

	test('a record deleted since, and a new key someone took since, refuse the plan naming them', async () => {
		const carried = (await plan()).plan;
		await suite.person.deleteAsset('APPLY-5');
		await suite.person.createAsset({
			externalId: 'APPLY-6',
			deviceName: 'Made by hand',
			status: 'New',
			hardwareVendor: 'Dell',
		});
		suite.sandbox.resetStats();
		const error = await failureOf(apply(carried));
		expect(error.description).toContain(
			'- APPLY-5 ("Laptop 5" · person5@northwind.example) was deleted since the dry run',
		);
		expect(error.description).toContain(
			'- APPLY-6 ("Made by hand") was given the externalId "APPLY-6" the plan creates, since the dry run',
		);
		expect(writes()).toEqual([]);
	});

	test('what is not a carried plan of this resource is refused before anything is read', async () => {
		suite.sandbox.resetStats();
		const notAPlan = await failureOf(apply({ planId: 'p2-whatever', entries: [] }));
		expect(notAPlan.message).toBe(
			'Apply Sync Plan refused: the plan is of another version of this node',
		);
		const carried = (await plan()).plan as IDataObject;
		const other = await failureOf(
			runNode(contracts, {
				parameters: { operation: 'applyPlan', approvedPlan: carried, options: {} } as never,
				credential: suite.credential,
				input: [{}],
			}),
		);
		expect(other.message).toBe(
			"Apply Sync Plan refused: the plan is an asset sync's, not a contract sync's",
		);
		// an entry taken out of the plan no longer matches its id
		const cut = { ...carried, entries: (carried.entries as IDataObject[]).slice(1) };
		const tampered = await failureOf(apply(cut));
		expect(tampered.message).toBe(
			`Apply Sync Plan refused: its entries are not those of the plan ${String(carried.planId)}`,
		);
		expect(suite.apiCalls().filter((call) => call.method !== 'GET')).toEqual([]);
	});

	test('Include Plan for Approval off: the dry run carries no plan; a run that writes never does', async () => {
		const [[report]] = await suite.sync(tonight(), {
			dryRun: true,
			options: { output: 'report', carryPlan: false },
		});
		expect(report.json).not.toHaveProperty('plan');
		const [[done]] = await suite.sync(tonight(), {
			maxRemovalPercent: 50,
			options: { output: 'summary' },
		});
		expect(done.json).not.toHaveProperty('plan');
	});
});

describe('Apply Sync Plan for contracts', () => {
	const suite = assetSyncSuite([], {});
	const order = (n: number, amount = 100): IDataObject => ({
		externalId: `APPLY-PO-${n}`,
		ref: `REF-${n}`,
		type: 'PurchaseOrder',
		vendorName: 'Acme Software',
		agreementDate: '2025-01-15',
		lineItems: [{ externalId: `APPLY-PO-${n}-L1`, description: 'Seats', amount }],
	});
	const contractSync = (input: IDataObject[], parameters: IDataObject = {}) =>
		runNode(contracts, {
			parameters: {
				operation: 'sync',
				inputShape: 'contracts',
				fieldsToSync: ['ref', 'vendorName', 'agreementDate'],
				lineItemFieldsToSync: ['description', 'amount'],
				createOnlyFields: ['type'],
				filterMode: 'expression',
				filterExpression: 'externalId sw "APPLY-PO-"',
				missingRecords: 'delete',
				options: { output: 'summary' },
				...parameters,
			} as never,
			credential: suite.credential,
			input,
		});
	const stored = (externalId: string) =>
		suite.sandbox.store.contracts.findByExternalId(externalId) as IDataObject | undefined;

	test('a line item change and a deletion applied as approved; a contract that gained a line since refuses the plan', async () => {
		await runNode(contracts, {
			parameters: { operation: 'upsert', mode: 'replace', inputMode: 'json' } as never,
			credential: suite.credential,
			input: [order(1), order(2), order(3)],
		});
		const tonightOrders = [order(1, 150), order(2)];
		const [[summary]] = await contractSync(tonightOrders, { dryRun: true });
		expect(summary.json).toMatchObject({ updated: 1, deleted: 1, wouldBeRefusedBy: 'guard' });
		const carried = summary.json.plan;
		suite.sandbox.resetStats();
		const [[done]] = await runNode(contracts, {
			parameters: {
				operation: 'applyPlan',
				approvedPlan: carried,
				options: { output: 'summary' },
			} as never,
			credential: suite.credential,
			input: [{}],
		});
		expect(done.json).toMatchObject({ updated: 1, deleted: 1, planId: summary.json.planId });
		expect((stored('APPLY-PO-1')!.lineItems as IDataObject[])[0].amount).toBe(150);
		expect(stored('APPLY-PO-3')).toBeUndefined();

		// another night: approved, then someone adds a line to the order the plan changes
		const [[next]] = await contractSync([order(1, 175), order(2)], { dryRun: true });
		await suite.person.editContract('APPLY-PO-1', (current) => ({
			...current,
			lineItems: [
				...(current.lineItems as IDataObject[]),
				{ externalId: 'MANUAL-1', description: 'Freight', amount: 40 },
			],
		}));
		suite.sandbox.resetStats();
		const error = await failureOf(
			runNode(contracts, {
				parameters: { operation: 'applyPlan', approvedPlan: next.json.plan, options: {} } as never,
				credential: suite.credential,
				input: [{}],
			}),
		);
		expect(error.message).toMatch(
			/^Apply Sync Plan refused: the register changed since the dry run: APPLY-PO-1 \("Acme Software"\) was edited since the dry run/,
		);
		expect(suite.apiCalls().filter((call) => call.method !== 'GET')).toEqual([]);
	});
});
