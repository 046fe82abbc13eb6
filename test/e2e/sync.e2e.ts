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

/** The export's devices that Sync creates (the placeholder and the bad date are rows to fix). */
const DEVICES = [
	['C02MDM0001', 'MBP-ANNA'],
	['C02MDM0002', 'MBP-BEN'],
	['pf3mdm0003', 'TP-CARA'],
	['PF3MDM0004', 'TP-DAN'],
	['CN0MDM0005', 'LAT-EVA'],
];

/** The export node's code with its CSV changed by `edit` (a line per device after the header). */
function editExport(workflow: WorkflowJson, edit: (lines: string[]) => string[]): WorkflowJson {
	const copy = structuredClone(workflow);
	for (const node of copy.nodes as Array<{ name: string; parameters: IDataObject }>) {
		if (node.name !== 'Device export (Intune CSV)') continue;
		const code = String(node.parameters.jsCode);
		const start = code.indexOf('const csv = [');
		const end = code.indexOf("].join('\\n');");
		const lines = code
			.slice(start + 'const csv = ['.length, end)
			.split('\n')
			.map((line) => line.trim().replace(/,$/, ''))
			.filter(Boolean)
			.map((line) => JSON.parse(line) as string);
		const [header, ...rows] = lines;
		const csv = [header, ...edit(rows)].map((line) => `\t${JSON.stringify(line)}`).join(',\n');
		node.parameters.jsCode = `${code.slice(0, start)}const csv = [\n${csv},\n${code.slice(end)}`;
	}
	return copy;
}

describe('the Sync example in real n8n: dry run, run, run again', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	const { dryRun, live } = syncExample();
	const leaver = exampleWorkflows().find(({ file }) => file === '7-leaver-assets.json')!.workflow;
	const exportedAssets = () =>
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

	test('dry run: the plan from a CSV export read by Extract From File, nothing written; the placeholder serial and the bad date leave by the error output', async () => {
		sandbox.resetStats();
		const run = await home.executeWorkflow(dryRun.id!);
		expect(run.error).toBeUndefined();
		expect(run.outputs.Plan.map((item) => [item.serialNumber, item.action, item.dryRun])).toEqual(
			DEVICES.map(([serial]) => [serial, 'create', true]),
		);
		expect(run.outputs.Plan[1].changes).toMatchObject({
			externalId: { before: null, after: 'MDM-3f9c1a20-0002' },
			serialNumber: { before: null, after: 'C02MDM0002' },
			deviceName: { before: null, after: 'MBP-BEN' },
			status: { before: null, after: 'Deployed' },
			assetType: { before: null, after: 'Laptop' },
		});
		expect(run.outputs['Rows to fix']).toEqual([
			expect.objectContaining({
				error:
					'Serial Number (serialNumber) is "To Be Filled By O.E.M.", a placeholder (Placeholder Keys), not a key: the row cannot be matched to an asset [item 5]',
			}),
			expect.objectContaining({
				error: expect.stringMatching(
					/^Invalid source row: Last Synced At \(lastSyncDtm\) .*\[item 6\]$/,
				),
			}),
		]);
		expect(writes()).toEqual([]);
		expect(exportedAssets()).toEqual([]);
	});

	test('run: the same plan carried out; run again: nothing written; a dirtier export the next night: nothing created, nothing retired', async () => {
		const first = await home.executeWorkflow(live.id!);
		expect(first.error).toBeUndefined();
		expect(first.outputs.Plan.map((item) => [item.serialNumber, item.action])).toEqual(
			DEVICES.map(([serial]) => [serial, 'created']),
		);
		expect(first.outputs['Rows to fix']).toHaveLength(2);
		expect(
			exportedAssets()
				.map((asset) => [asset.serialNumber, asset.deviceName, asset.status, asset.assetType])
				.sort(),
		).toEqual(DEVICES.map(([serial, name]) => [serial, name, 'Deployed', 'Laptop']).sort());

		sandbox.resetStats();
		const second = await home.executeWorkflow(live.id!);
		expect(second.outputs.Plan.map((item) => item.action)).toEqual(Array(5).fill('unchanged'));
		expect(writes()).toEqual([]);

		// the next night: padding and case change again, one device's status was set by hand
		const ben = exportedAssets().find((asset) => asset.deviceName === 'MBP-BEN')!;
		sandbox.store.assets.put({ ...ben, status: 'OutForRepair', statusType: 'Unavailable' });
		const dirtier = editExport(live, (rows) =>
			rows.map((row) => {
				const cells = row.split(',');
				cells[2] = /^C02/.test(cells[2])
					? ` ${cells[2].trim().toLowerCase()}  `
					: cells[2].trim().toUpperCase();
				return cells.join(',');
			}),
		);
		await home.importWorkflows([{ ...dirtier, id: 'stockroomExSync6Dirty', name: 'dirtier' }]);
		sandbox.resetStats();
		const third = await home.executeWorkflow('stockroomExSync6Dirty');
		expect(third.error).toBeUndefined();
		expect(third.outputs.Plan.map((item) => item.action)).toEqual(Array(5).fill('unchanged'));
		expect(writes()).toEqual([]);
		expect(exportedAssets().find((asset) => asset.deviceName === 'MBP-BEN')!.status).toBe(
			'OutForRepair',
		);
	});

	test('a guard stop fails the run at "Sync refused: fail the run", saying why and that nothing was written', async () => {
		// the export shrinks to one device: retiring the other four is more than the guard allows
		const shrunk = editExport(live, (rows) => rows.slice(0, 1));
		await home.importWorkflows([{ ...shrunk, id: 'stockroomExSync6Shrunk', name: 'shrunk' }]);
		sandbox.resetStats();
		const run = await home.executeWorkflow('stockroomExSync6Shrunk');
		expect(run.error).toMatchObject({
			node: 'Sync refused: fail the run',
			message: expect.stringMatching(
				/^Sync stopped by its guard: it would retire 4 of the 5 assets.*\nNothing was written\./s,
			),
		});
		expect(run.outputs.Plan ?? []).toEqual([]);
		expect(run.outputs['Rows to fix'] ?? []).toEqual([]);
		expect(writes()).toEqual([]);
	});

	test('the export renames a column: the run fails naming it and the closest column, nothing written', async () => {
		const renamed = editExport(live, (rows) => rows);
		for (const node of renamed.nodes as Array<{ name: string; parameters: IDataObject }>)
			if (node.name === 'Device export (Intune CSV)')
				node.parameters.jsCode = String(node.parameters.jsCode).replace(
					'Serial number,',
					'Serial Number (BIOS),',
				);
		await home.importWorkflows([{ ...renamed, id: 'stockroomExSync6Renamed', name: 'renamed' }]);
		sandbox.resetStats();
		const run = await home.executeWorkflow('stockroomExSync6Renamed');
		expect(run.error?.node).toBe('Sync refused: fail the run');
		expect(run.error?.message).toMatch(
			/^Sync refused: no input item has Serial Number \(serialNumber\)\n/,
		);
		expect(run.error?.message).toContain('(did you mean "Serial Number (BIOS)"?)');
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

describe('the Sync example night after night: a device missing one night and back the next is restored (issue 38)', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	// Dry Run off, and the guard raised: one device of five is 20 % of the scope, more than the
	// example's 10 % allows, and restorations are capped as removals are; the export's two bad rows
	// of six (without TP-DAN) are more than the example's 30 % of failed rows allows
	const nightly = (id: string, dryRun: boolean, edit: (rows: string[]) => string[]) => {
		const workflow = editExport(syncExample().live, edit);
		for (const node of workflow.nodes as Array<{ name: string; parameters: IDataObject }>) {
			if (node.name !== 'Sync assets') continue;
			node.parameters.dryRun = dryRun;
			node.parameters.maxRemovalPercent = 50;
			node.parameters.maxFailedPercent = 40;
		}
		return { ...workflow, id, name: `${workflow.name} (${id})` };
	};
	const all = nightly('stockroomExSync6Nightly', false, (rows) => rows);
	const planAll = nightly('stockroomExSync6NightlyPlan', true, (rows) => rows);
	const withoutDan = nightly('stockroomExSync6NoDan', false, (rows) =>
		rows.filter((row) => row.split(',')[1] !== 'TP-DAN'),
	);
	const exportedAssets = () =>
		sandbox.store.assets.all().filter((asset) => String(asset.externalId).startsWith('MDM-'));
	const dan = () => exportedAssets().find((asset) => asset.serialNumber === 'PF3MDM0004')!;
	const writes = () =>
		sandbox.journal().filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');
	/** Each device's action in Sync's output (one item per device). */
	const actions = (items: IDataObject[]) => {
		expect(items).toHaveLength(DEVICES.length);
		return Object.fromEntries(items.map((item) => [String(item.serialNumber), item.action]));
	};
	/** Each device's action: `action`, but those in `except`. */
	const each = (action: string, except: Record<string, string> = {}) => ({
		...Object.fromEntries(DEVICES.map(([serial]) => [serial, action])),
		...except,
	});

	beforeAll(async () => {
		sandbox = await createSandbox();
		home = await createN8nHome({ env: { GENERIC_TIMEZONE: 'UTC' } });
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		await home.importWorkflows([all, planAll, withoutDan]);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('night 1 creates every device; night 2 the export lacks TP-DAN: retired; night 3 it is back: restored to Deployed with one PATCH; night 4 writes nothing', async () => {
		// night 1: every device is new
		sandbox.resetStats();
		const night1 = await home.executeWorkflow(all.id!);
		expect(night1.error).toBeUndefined();
		expect(actions(night1.outputs.Plan)).toEqual(each('created'));
		expect(night1.outputs['Rows to fix']).toHaveLength(2);
		expect(exportedAssets().map((asset) => asset.status)).toEqual(Array(5).fill('Deployed'));
		const danId = String(dan().id);

		// night 2: the export lacks TP-DAN (PF3MDM0004): Missing Records retires it, nothing else
		sandbox.resetStats();
		const night2 = await home.executeWorkflow(withoutDan.id!);
		expect(night2.error).toBeUndefined();
		expect(actions(night2.outputs.Plan)).toEqual(each('unchanged', { PF3MDM0004: 'retired' }));
		expect(night2.outputs.Plan.find((item) => item.serialNumber === 'PF3MDM0004')).toMatchObject({
			id: danId,
			changes: { status: { before: 'Deployed', after: 'Retired' } },
		});
		expect(writes().map((call) => [call.method, call.path, call.body])).toEqual([
			['PATCH', `/api/assets/v1/${danId}`, { status: 'Retired' }],
		]);
		expect(dan().status).toBe('Retired');

		// night 3, planned first (Dry Run): it is back, and the plan restores it
		sandbox.resetStats();
		const planned = await home.executeWorkflow(planAll.id!);
		expect(planned.error).toBeUndefined();
		expect(actions(planned.outputs.Plan)).toEqual(each('unchanged', { PF3MDM0004: 'restore' }));
		expect(planned.outputs.Plan.find((item) => item.serialNumber === 'PF3MDM0004')).toMatchObject({
			dryRun: true,
			changes: { status: { before: 'Retired', after: 'Deployed' } },
		});
		expect(writes()).toEqual([]);
		expect(dan().status).toBe('Retired');

		// night 3: restored to the status its row gives a new device, the only write of the night
		sandbox.resetStats();
		const night3 = await home.executeWorkflow(all.id!);
		expect(night3.error).toBeUndefined();
		expect(actions(night3.outputs.Plan)).toEqual(each('unchanged', { PF3MDM0004: 'restored' }));
		expect(night3.outputs.Plan.find((item) => item.serialNumber === 'PF3MDM0004')).toMatchObject({
			id: danId,
			dryRun: false,
			changes: { status: { before: 'Retired', after: 'Deployed' } },
			planId: planned.outputs.Plan[0].planId,
		});
		expect(writes().map((call) => [call.method, call.path, call.body])).toEqual([
			['PATCH', `/api/assets/v1/${danId}`, { status: 'Deployed' }],
		]);
		expect(dan().status).toBe('Deployed');
		expect(exportedAssets().map((asset) => asset.status)).toEqual(Array(5).fill('Deployed'));

		// night 4: nothing to do
		sandbox.resetStats();
		const night4 = await home.executeWorkflow(all.id!);
		expect(night4.error).toBeUndefined();
		expect(actions(night4.outputs.Plan)).toEqual(each('unchanged'));
		expect(writes()).toEqual([]);
	});
});
