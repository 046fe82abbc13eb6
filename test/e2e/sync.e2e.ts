import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	EXAMPLE_CREDENTIAL,
	exampleWorkflows,
	type N8nHome,
	type WorkflowJson,
} from '../../scripts/n8n';

/** The example as saved (Dry Run on), and a copy with Dry Run off, as a user would turn it. */
function syncExample(): { dryRun: WorkflowJson; live: WorkflowJson } {
	const { workflow } = exampleWorkflows().find(({ file }) => file === '6-device-sync.json')!;
	const live = structuredClone(workflow);
	for (const node of live.nodes as Array<{ name: string; parameters: IDataObject }>) {
		if (node.name === 'Sync assets') node.parameters.dryRun = false;
	}
	return {
		dryRun: workflow,
		live: { ...live, id: 'stockroomExSync6Live', name: `${live.name} (live)` },
	};
}

const DEVICES = ['0001', '0002', '0003', '0004', '0005'].map(
	(n, i) => `MDM-${['C02', 'C02', 'PF3', 'PF3', 'CN0'][i]}MDM${n}`,
);

describe('the Sync example in real n8n: dry run, run, run again', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	const { dryRun, live } = syncExample();
	const leaver = exampleWorkflows().find(({ file }) => file === '7-leaver-assets.json')!.workflow;
	const mdmAssets = () =>
		sandbox.store.assets.all().filter((asset) => String(asset.externalId).startsWith('MDM-'));
	const writes = () =>
		sandbox.journal().filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');

	beforeAll(async () => {
		sandbox = await createSandbox();
		home = await createN8nHome({ env: { GENERIC_TIMEZONE: 'UTC' } });
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		await home.importWorkflows([dryRun, live, leaver]);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('dry run: the plan, nothing written; the bad row leaves by the error output', async () => {
		sandbox.resetStats();
		const run = await home.executeWorkflow(dryRun.id!);
		expect(run.error).toBeUndefined();
		expect(run.outputs.Plan.map((item) => [item.externalId, item.action, item.dryRun])).toEqual(
			DEVICES.map((key) => [key, 'created', true]),
		);
		expect(run.outputs.Plan[0].changes).toMatchObject({
			deviceName: { before: null, after: 'MBP-ANNA' },
		});
		expect(run.outputs['Rows to fix']).toEqual([
			expect.objectContaining({
				error: expect.stringMatching(
					/^Invalid source row: Last Synced At \(lastSyncDtm\) .*\[item 5\]$/,
				),
				externalId: 'MDM-C02MDM0006',
			}),
		]);
		expect(writes()).toEqual([]);
		expect(mdmAssets()).toEqual([]);
	});

	test('run: the same plan carried out; run again: nothing written', async () => {
		const first = await home.executeWorkflow(live.id!);
		expect(first.error).toBeUndefined();
		expect(first.outputs.Plan.map((item) => [item.externalId, item.action])).toEqual(
			DEVICES.map((key) => [key, 'created']),
		);
		expect(first.outputs['Rows to fix']).toHaveLength(1);
		expect(
			mdmAssets()
				.map((asset) => asset.externalId)
				.sort(),
		).toEqual([...DEVICES].sort());

		sandbox.resetStats();
		const second = await home.executeWorkflow(live.id!);
		expect(second.outputs.Plan.map((item) => item.action)).toEqual(Array(5).fill('unchanged'));
		expect(writes()).toEqual([]);
	});

	test('a guard stop with On Error: Continue: one item on the error output says nothing was written', async () => {
		// the export shrinks to one device: retiring the other four is more than the guard allows
		const shrunk = structuredClone(live);
		for (const node of shrunk.nodes as Array<{ name: string; parameters: IDataObject }>) {
			if (node.name === 'Device export (MDM)')
				node.parameters.jsCode = `return (await (async () => {\n${String(node.parameters.jsCode)}\n})()).slice(0, 1);`;
		}
		await home.importWorkflows([{ ...shrunk, id: 'stockroomExSync6Shrunk', name: 'shrunk' }]);
		sandbox.resetStats();
		const run = await home.executeWorkflow('stockroomExSync6Shrunk');
		expect(run.error).toBeUndefined();
		expect(run.outputs.Plan ?? []).toEqual([]);
		// n8n adds the fields of the item it is paired with (the first) to an error output's item
		expect(run.outputs['Rows to fix']).toEqual([
			expect.objectContaining({
				error: expect.stringMatching(
					/^Sync stopped by its guard: it would retire 4 of the 5 assets/,
				),
				message: expect.stringMatching(/^Nothing was written\./),
			}),
		]);
		expect(writes()).toEqual([]);
	});

	test("the leaver example: each of the leaver's assets is collected, nothing else changes", async () => {
		const email = 'hannah.mensah@northwind.example';
		const theirs = structuredClone(
			sandbox.store.assets.all().filter((asset) => asset.assignedToEmail === email),
		);
		expect(theirs).toHaveLength(3);
		const run = await home.executeWorkflow(leaver.id!);
		expect(run.error).toBeUndefined();
		for (const asset of theirs) {
			const {
				lastModifiedDtm: _at,
				lastModifiedBy: _by,
				assignedTo: _to,
				assignedToEmail: _email,
				notes: _notes,
				status: _status,
				statusType: _type,
				...rest
			} = asset;
			const now = sandbox.store.assets.get(String(asset.id))!;
			expect(now).toMatchObject({
				...rest,
				status: 'ReadyToDeploy',
				statusType: 'Available',
				notes: expect.stringMatching(
					new RegExp(`^Collected from ${email} on \\d{4}-\\d{2}-\\d{2}$`),
				),
			});
			expect(now).not.toHaveProperty('assignedToEmail');
		}
	});
});
