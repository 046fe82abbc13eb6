import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	EXAMPLE_CREDENTIAL,
	exampleWorkflows,
	waitFor,
	type N8nHome,
	type StoredExecution,
	type WorkflowJson,
} from '../../scripts/n8n';

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The calendar date `days` from today (UTC), as the example's export counts its dates. */
const inDays = (days: number) => dayOf(Date.now() + days * DAY);

const example = (file: string) => exampleWorkflows().find((entry) => entry.file === file)!.workflow;

/** A copy of the example with its export's code changed and Dry Run as given. */
function variant(
	id: string,
	dryRun: boolean,
	edit: (code: string) => string = (code) => code,
): WorkflowJson {
	const copy = structuredClone(example('8-procurement-contract-sync.json'));
	for (const node of copy.nodes as Array<{ name: string; parameters: IDataObject }>) {
		if (node.name === 'Sync contracts') node.parameters.dryRun = dryRun;
		if (node.name === 'Procurement export (CSV)')
			node.parameters.jsCode = edit(String(node.parameters.jsCode));
	}
	return { ...copy, id, name: `${copy.name} (${id})` };
}

/** The contracts the example's export creates, with their line items' ids, written by hand. */
const CREATED = [
	['PO-4500012345', 'Acme Software', ['LN-8801', 'LN-8802']],
	['PO-4500012346', 'Globex Analytics', ['LN-8810', 'LN-8811', 'LN-8812']],
	['PO-4500012347', 'Initech Cloud', ['LN-8820']],
] as const;

describe('the Contract Sync example in real n8n: dry run, run, run again, and the renewal reminders it feeds', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	const dryRun = example('8-procurement-contract-sync.json');
	const live = variant('stockroomExContractSync8Live', false);
	const reminders = example('3-renewal-reminders.json');
	const synced = () =>
		sandbox.store.contracts
			.all()
			.filter((contract) => String(contract.externalId).startsWith('PO-'));
	const writes = () =>
		sandbox.journal().filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');

	beforeAll(async () => {
		sandbox = await createSandbox();
		home = await createN8nHome({ env: { GENERIC_TIMEZONE: 'UTC' } });
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		await home.importWorkflows([dryRun, live, reminders]);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('dry run: the plan from a CSV export read by Extract From File, nothing written; the rows that disagree and the N/A row leave by the error output', async () => {
		sandbox.resetStats();
		const run = await home.executeWorkflow(dryRun.id!);
		expect(run.error).toBeUndefined();
		expect(run.outputs.Plan.map((item) => [item.externalId, item.action, item.dryRun])).toEqual(
			CREATED.map(([key]) => [key, 'create', true]),
		);
		expect(run.outputs.Plan[0].changes).toMatchObject({
			vendorName: { before: null, after: 'Acme Software' },
			type: { before: null, after: 'OrderForm' },
			renewalDate: { before: null, after: inDays(45) },
			isAutomaticRenewal: { before: null, after: true },
			'lineItems["LN-8801"]': {
				before: null,
				after: {
					externalId: 'LN-8801',
					description: 'Design seats',
					unitCount: 25,
					amount: 1200,
					currency: 'USD',
					startDate: inDays(-320),
					endDate: inDays(45),
				},
			},
		});
		expect(run.outputs['Rows to fix']).toEqual([
			expect.objectContaining({
				error: expect.stringMatching(
					/^Items 6 and 7, rows of the contract "PO-4500012348", disagree on Renewal Date \(renewalDate\): .* \[item 7\]$/,
				),
			}),
			expect.objectContaining({
				error:
					'External ID (externalId) is "N/A", a placeholder (Placeholder Keys), not a key: the row cannot be matched to a contract [item 8]',
			}),
		]);
		expect(writes()).toEqual([]);
		expect(synced()).toEqual([]);
	});

	test('run: the same plan carried out; run again: nothing written; the next night a line cancelled and a price changed', async () => {
		const first = await home.executeWorkflow(live.id!);
		expect(first.error).toBeUndefined();
		expect(first.outputs.Plan.map((item) => [item.externalId, item.action])).toEqual(
			CREATED.map(([key]) => [key, 'created']),
		);
		expect(first.outputs['Rows to fix']).toHaveLength(2);
		expect(
			synced().map((contract) => [
				contract.externalId,
				contract.vendorName,
				(contract.lineItems as IDataObject[]).map((line) => line.externalId),
			]),
		).toEqual(CREATED.map(([key, vendor, lines]) => [key, vendor, lines]));
		const globex = synced()[1];
		expect(globex).toMatchObject({
			ref: 'PO-4500012346',
			type: 'PurchaseOrder',
			terminationNoticeDays: 90,
			isAutomaticRenewal: false,
			businessOwnerEmail: 'ben.okafor@northwind.example',
			renewalDate: `${inDays(325)}T00:00:00Z`,
		});
		expect((globex.lineItems as IDataObject[])[0]).toMatchObject({
			amount: 18000,
			currency: 'EUR',
		});

		sandbox.resetStats();
		const second = await home.executeWorkflow(live.id!);
		expect(second.outputs.Plan.map((item) => item.action)).toEqual([
			'unchanged',
			'unchanged',
			'unchanged',
		]);
		expect(writes()).toEqual([]);

		// the next night: Globex's onboarding line is cancelled, Acme's seats cost less, and the
		// N/A row is fixed at the source (while a row names no order, which lines the export holds
		// is not known: no line is removed). One line of the six in scope is more than the guard's
		// 10 %: the execution fails, nothing written
		const edit = (code: string) =>
			code
				.replace('"$1,200.00"', '"$1,150.00"')
				.replace(/\n\t`PO-4500012346[^\n]*Onboarding[^\n]*`,/, '')
				.replace(/\n\t`N\/A,[^\n]*`,/, '');
		const nextNight = variant('stockroomExContractSync8Next', false, edit);
		const allowed = variant('stockroomExContractSync8Allowed', false, edit);
		for (const node of allowed.nodes as Array<{ name: string; parameters: IDataObject }>)
			if (node.name === 'Sync contracts') node.parameters.maxRemovalPercent = 20;
		await home.importWorkflows([nextNight, allowed]);
		sandbox.resetStats();
		const stopped = await home.executeWorkflow(nextNight.id!);
		expect(stopped.error).toMatchObject({
			node: 'Sync refused: fail the run',
			message: expect.stringMatching(
				/^Sync stopped by its guard: it would remove 1 of the 6 line items of the contracts in scope \(16\.7 %\)/,
			),
		});
		expect(writes()).toEqual([]);
		const third = await home.executeWorkflow(allowed.id!);
		expect(third.error).toBeUndefined();
		expect(third.outputs.Plan.map((item) => [item.externalId, item.action, item.changes])).toEqual([
			[
				'PO-4500012345',
				'updated',
				{ 'lineItems["LN-8801"].amount': { before: 1200, after: 1150 } },
			],
			[
				'PO-4500012346',
				'updated',
				{
					'lineItems["LN-8812"]': {
						before: expect.objectContaining({ externalId: 'LN-8812', description: 'Onboarding' }),
						after: null,
					},
				},
			],
			['PO-4500012347', 'unchanged', {}],
		]);
		// each changed contract read just before its one write
		expect(writes().map((call) => call.method)).toEqual(['PUT', 'PUT']);
		expect((synced()[1].lineItems as IDataObject[]).map((line) => line.externalId)).toEqual([
			'LN-8810',
			'LN-8811',
		]);
	});

	test('the renewal reminders example reminds the owner of a contract the sync brought in', async () => {
		const acme = sandbox.store.contracts.findByExternalId('PO-4500012345')!;
		const id = reminders.id!;
		await home.publishWorkflow(id);
		const server = await home.start();
		let activation: StoredExecution;
		try {
			const first = await waitFor(
				'the activation execution',
				() => home.readExecutions({ workflowId: id })[0],
				60_000,
			);
			activation = await home.waitForExecution(first.id);
		} finally {
			await server.stop();
		}
		expect(activation.status).toBe('success');
		expect(
			activation.outputs['Reminder message'].find((message) => message.contractId === acme.id),
		).toEqual({
			contractId: acme.id,
			to: 'anna.berg@northwind.example',
			subject: `Notice due by ${inDays(15)}: Acme Software (PO-4500012345)`,
			text: `The contract PO-4500012345 with Acme Software (ref PO-4500012345) renews automatically on ${inDays(45)}.\nTo cancel or renegotiate, give notice by ${inDays(15)}: 15 days from today (30 days' notice).`,
		});
	});
});
