import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	EXAMPLE_CREDENTIAL,
	exampleWorkflows,
	isFinished,
	waitFor,
	type N8nHome,
	type N8nServer,
	type StoredExecution,
	type WorkflowJson,
} from '../../scripts/n8n';

/**
 * Issue 33 in real n8n: the approval example (a dry run, a person's approval through a Wait
 * node, the apply with Apply Only Plan), and the device-sync example put on a schedule, whose
 * refused nights are failed executions that n8n's error workflow reports.
 */

type Node = { name: string; type: string; parameters: IDataObject };
/** The service desk's tool: another client app of the service, which people edit the register with. */
const SERVICE_DESK = {
	id: 'service-desk',
	secret: 'service-desk-secret',
	scopes: ['Assets.Read', 'Assets.Write'],
};
const MANUAL = 'When clicking ‘Execute workflow’';
const example = (file: string) =>
	structuredClone(exampleWorkflows().find((entry) => entry.file === file)!.workflow);

/** A copy of a workflow under another id, its nodes changed by `edit`. */
function variant(workflow: WorkflowJson, id: string, edit: (node: Node) => void): WorkflowJson {
	const copy = structuredClone(workflow);
	for (const node of copy.nodes as Node[]) edit(node);
	return { ...copy, id, name: `${copy.name} (${id})` };
}

/** The export node's CSV cut to its first `rows` devices. */
const keepRows = (rows: number) => (node: Node) => {
	if (node.name !== 'Device export (Intune CSV)') return;
	const code = String(node.parameters.jsCode);
	const start = code.indexOf('const csv = [');
	const end = code.indexOf("].join('\\n');");
	const lines = code
		.slice(start, end)
		.split('\n')
		.slice(1, 2 + rows);
	node.parameters.jsCode = `${code.slice(0, start)}const csv = [\n${lines.join('\n')}\n${code.slice(end)}`;
};

describe('a sync a person approves, in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer;
	const approval = example('9-device-sync-approval.json');
	const exported = () =>
		sandbox.store.assets.all().filter((asset) => String(asset.externalId).startsWith('MDM-'));
	const writes = () =>
		sandbox.journal().filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');
	/** Another client app edits an asset over HTTP (lastModifiedDtm and lastModifiedBy move). */
	async function serviceDeskEdit(id: unknown, patch: IDataObject): Promise<IDataObject> {
		const answer = await fetch(`${sandbox.url}/api/assets/v1/${String(id)}`, {
			method: 'PATCH',
			headers: {
				Authorization: `Bearer ${sandbox.token(undefined, SERVICE_DESK.id)}`,
				'Content-Type': 'application/json',
			},
			body: JSON.stringify(patch),
		});
		expect(answer.status).toBe(200);
		return (await answer.json()) as IDataObject;
	}

	/** Runs a workflow from its manual trigger; resolves when it waits or ends. */
	async function run(workflowId: string): Promise<StoredExecution> {
		const id = await server.rest.runWorkflow(workflowId, MANUAL);
		return await home.waitForExecution(id, 120_000);
	}
	/** Resumes a waiting run by its link, as a person's click does; resolves when it has ended. */
	async function click(execution: StoredExecution, link: 'approveUrl' | 'rejectUrl') {
		const url = String(execution.outputs['Approval request'][0][link]);
		const answer = await fetch(url);
		expect(answer.status).toBe(200);
		return await waitFor(
			`execution ${execution.id} to end`,
			() => {
				const [now] = home.readExecutions({ id: execution.id });
				return now && now.status !== 'waiting' && isFinished(now) ? now : undefined;
			},
			120_000,
		);
	}

	beforeAll(async () => {
		sandbox = await createSandbox({ clients: [SERVICE_DESK] });
		home = await createN8nHome({ env: { GENERIC_TIMEZONE: 'UTC' } });
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		server = await home.start();
	});

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
		await sandbox?.close();
	});

	test('a first night with nothing to remove runs straight through: the dry run, then the apply of its plan', async () => {
		await home.importWorkflows([approval]);
		sandbox.resetStats();
		const done = await run(approval.id!);
		expect(done.status).toBe('success');
		const [planned] = done.outputs['Sync (dry run)'];
		const [applied] = done.outputs['Sync (apply)'];
		expect(planned).toMatchObject({ created: 5, retired: 0, deleted: 0, cleared: 0, dryRun: true });
		expect(applied).toMatchObject({ created: 5, dryRun: false, planId: planned.planId });
		expect(done.outputs['Approval request']).toBeUndefined();
		expect(exported()).toHaveLength(5);
		expect(done.outputs['Rows to fix']).toHaveLength(2);
	});

	test('a removal waits for a person: approve, and exactly the approved plan is applied', async () => {
		// tonight's export lost a device (retiring 1 of 5 is more than the guard's 10 %: raise it)
		const tonight = variant(approval, 'stockroomExSync9Approve', (node) => {
			keepRows(4)(node);
			if (node.type.endsWith('stockroomAsset')) node.parameters.maxRemovalPercent = 50;
		});
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.status).toBe('waiting');
		const [request] = waiting.outputs['Approval request'];
		expect(request.subject).toBe('Sync plan: would retire 1');
		expect(String(request.html)).toContain('<h3>Would retire (1)</h3>');
		expect(String(request.html)).toContain('LAT-EVA (CN0MDM0005)');
		expect(String(request.html)).toContain('decision=approve');
		expect(writes()).toEqual([]);

		const done = await click(waiting, 'approveUrl');
		expect(done.status).toBe('success');
		expect(done.outputs['Sync (apply)'][0]).toMatchObject({
			retired: 1,
			created: 0,
			updated: 0,
			planId: request.planId,
		});
		expect(writes().map((call) => [call.method, call.body])).toEqual([
			['PATCH', { status: 'Retired' }],
		]);
		expect(exported().find((asset) => asset.deviceName === 'LAT-EVA')!.status).toBe('Retired');
	});

	test('reject: nothing is written', async () => {
		const tonight = variant(approval, 'stockroomExSync9Reject', (node) => {
			keepRows(3)(node);
			if (node.type.endsWith('stockroomAsset')) node.parameters.maxRemovalPercent = 50;
		});
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.outputs['Approval request'][0].subject).toBe('Sync plan: would retire 1');
		const done = await click(waiting, 'rejectUrl');
		expect(done.status).toBe('success');
		expect(done.outputs['Rejected: nothing written']).toHaveLength(1);
		expect(done.outputs['Sync (apply)']).toBeUndefined();
		expect(writes()).toEqual([]);
	});

	test('the register changes between the approval request and the click: the apply writes nothing and the run fails saying why', async () => {
		const tonight = variant(approval, 'stockroomExSync9Changed', (node) => {
			keepRows(3)(node);
			if (node.type.endsWith('stockroomAsset')) node.parameters.maxRemovalPercent = 50;
		});
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.status).toBe('waiting');
		// someone renames a device at the service desk while the request waits: the plan now renames it back
		const anna = exported().find((asset) => asset.deviceName === 'MBP-ANNA')!;
		const edited = await serviceDeskEdit(anna.id, { deviceName: 'Anna (renamed by hand)' });
		sandbox.resetStats();
		const done = await click(waiting, 'approveUrl');
		expect(done.status).toBe('error');
		expect(done.error?.node).toBe('Plan changed: fail the run');
		const lines = done.error!.message.split('\n');
		expect(lines[0]).toBe(
			'Sync refused: the plan is not the one approved: the asset C02MDM0001 was edited since the dry run',
		);
		expect(lines).toContain(
			`Edited since the dry run: C02MDM0001 ("Anna (renamed by hand)"), modified ${String(edited.lastModifiedDtm)} by service-desk (API client): the plan now would update it.`,
		);
		expect(lines).toContain('Nothing was written.');
		expect(writes()).toEqual([]);
	});

	test('a device the approved plan retires is re-issued by the service desk before the click (issue 38): same counts, same actions, still refused naming it; nothing written', async () => {
		const tonight = variant(approval, 'stockroomExSync9Edited', (node) => {
			keepRows(3)(node);
			if (node.type.endsWith('stockroomAsset')) node.parameters.maxRemovalPercent = 50;
		});
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.status).toBe('waiting');
		const [request] = waiting.outputs['Approval request'];
		expect(String(request.html)).toContain('TP-DAN (PF3MDM0004)');
		expect(writes()).toEqual([]);
		// the person approves "retire TP-DAN"; meanwhile the service desk re-issues the device to an
		// employee (fields the sync does not own: the plan still retires it, with the same counts)
		const employee = sandbox.store.users.all().find((user) => user.active)!;
		const dan = exported().find((asset) => asset.deviceName === 'TP-DAN')!;
		const edited = await serviceDeskEdit(dan.id, {
			assignedToEmail: employee.userName,
			notes: 'Re-issued: do not retire',
		});
		expect(edited.lastModifiedDtm).not.toBe(dan.lastModifiedDtm);
		expect(edited.assignedTo).toMatchObject({ name: employee.displayName });
		sandbox.resetStats();
		const done = await click(waiting, 'approveUrl');
		expect(done.status).toBe('error');
		expect(done.error?.node).toBe('Plan changed: fail the run');
		const lines = done.error!.message.split('\n');
		expect(lines[0]).toBe(
			'Sync refused: the plan is not the one approved: the asset PF3MDM0004 was edited since the dry run',
		);
		expect(lines).toContain(
			`Edited since the dry run: PF3MDM0004 ("TP-DAN" · ${String(employee.displayName)}), modified ${String(edited.lastModifiedDtm)} by service-desk (API client): the plan now would retire it.`,
		);
		expect(lines).toContain('Nothing was written.');
		expect(done.outputs['Sync (apply)'] ?? []).toEqual([]);
		expect(done.outputs.Applied).toBeUndefined();
		expect(writes()).toEqual([]);
		expect(sandbox.store.assets.get(String(dan.id))).toMatchObject({
			status: 'Deployed',
			assignedToEmail: employee.userName,
		});
	});
});

describe('the device-sync example on a schedule: a refused night is a failed execution, and n8n alerts', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer | undefined;
	const alert: WorkflowJson = {
		id: 'stockroomAlert',
		name: 'Alert: a workflow failed',
		nodes: [
			{
				parameters: {},
				id: '7d0f6a3e-5d0c-5b2e-9d8c-1f2e3a4b5c60',
				name: 'Error Trigger',
				type: 'n8n-nodes-base.errorTrigger',
				typeVersion: 1,
				position: [0, 0],
			},
			{
				parameters: {},
				id: '7d0f6a3e-5d0c-5b2e-9d8c-1f2e3a4b5c61',
				name: 'Send the alert',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
			},
		],
		connections: {
			'Error Trigger': { main: [[{ node: 'Send the alert', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
	/** The shipped example with its manual trigger replaced by a schedule, and the alert as its error workflow. */
	function scheduled(id: string, edit: (node: Node) => void): WorkflowJson {
		const workflow = variant(example('6-device-sync.json'), id, edit);
		for (const node of workflow.nodes as Array<Node & { typeVersion: number }>) {
			if (node.name !== MANUAL) continue;
			Object.assign(node, {
				name: 'Every 20 seconds',
				type: 'n8n-nodes-base.scheduleTrigger',
				typeVersion: 1.2,
				parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 20 }] } },
			});
		}
		const connections = Object.fromEntries(
			Object.entries(workflow.connections as Record<string, unknown>).map(([from, to]) => [
				from === MANUAL ? 'Every 20 seconds' : from,
				to,
			]),
		);
		return {
			...workflow,
			connections,
			settings: { ...(workflow.settings as object), errorWorkflow: alert.id },
		};
	}

	beforeAll(async () => {
		sandbox = await createSandbox();
		home = await createN8nHome({ env: { GENERIC_TIMEZONE: 'UTC' } });
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
	});

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
		await sandbox?.close();
	});

	test('a run the guard stops and a run whose export is empty both fail, and the error workflow runs for each', async () => {
		// the first night creates the five devices (dry run off), then the export shrinks or empties
		const live = variant(example('6-device-sync.json'), 'stockroomExSync6Live', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
		});
		await home.importWorkflows([live]);
		expect((await home.executeWorkflow(live.id!)).error).toBeUndefined();
		expect(
			sandbox.store.assets.all().filter((asset) => String(asset.externalId).startsWith('MDM-')),
		).toHaveLength(5);

		const guarded = scheduled('stockroomExSync6Guard', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
			keepRows(1)(node);
		});
		const empty = scheduled('stockroomExSync6Empty', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
			keepRows(0)(node);
		});
		await home.importWorkflows([alert, guarded, empty]);
		// n8n 2.x runs an error workflow only when it is published (1.x: in any case)
		await home.publishWorkflow(alert.id!);
		await home.publishWorkflow(guarded.id!);
		await home.publishWorkflow(empty.id!);
		sandbox.resetStats();
		server = await home.start();
		const failed = async (workflowId: string) =>
			await waitFor(
				`a scheduled run of ${workflowId}`,
				() =>
					home
						.readExecutions({ workflowId })
						.find((run) => run.mode === 'trigger' && isFinished(run)),
				120_000,
			);
		const guardRun = await failed(guarded.id!);
		const emptyRun = await failed(empty.id!);
		expect(guardRun.status).toBe('error');
		expect(guardRun.error?.message).toMatch(
			/^Sync stopped by its guard: it would retire 4 of the 5 assets/,
		);
		expect(emptyRun.status).toBe('error');
		expect(emptyRun.error?.message).toMatch(
			/^Sync refused: the input is empty, and the scope holds 5 assets\nNothing was written\./,
		);
		const alerts = await waitFor(
			'the error workflow to run for both',
			() => {
				const runs = home.readExecutions({ workflowId: alert.id }).filter(isFinished);
				return runs.length >= 2 ? runs : undefined;
			},
			60_000,
		);
		expect(alerts.every((run) => run.status === 'success')).toBe(true);
		expect(writes()).toEqual([]);

		function writes() {
			return sandbox
				.journal()
				.filter((call) => call.path.startsWith('/api/') && call.method !== 'GET');
		}
	});
});
