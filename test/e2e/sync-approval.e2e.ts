import type { IDataObject } from 'n8n-workflow';
import { chromium } from 'playwright-core';

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
 * Issues 33, 38 and 39 in real n8n: the approval example (a dry run that carries its plan, a
 * person's decision on an n8n form, Apply Sync Plan), and the device-sync example put on a
 * schedule, whose refused nights are failed executions that n8n's error workflow reports.
 */

type Node = { name: string; type: string; parameters: IDataObject };
/** The service desk's tool: another client app of the service, which people edit the register with. */
const SERVICE_DESK = {
	id: 'service-desk',
	secret: 'service-desk-secret',
	scopes: ['Assets.Read', 'Assets.Write'],
};
const MANUAL = 'When clicking ‘Execute workflow’';
const APPROVE = 'Approve and apply';
const example = (file: string) =>
	structuredClone(exampleWorkflows().find((entry) => entry.file === file)!.workflow);

/** A copy of a workflow under another id, its nodes changed by `edit`. */
function variant(workflow: WorkflowJson, id: string, edit: (node: Node) => void): WorkflowJson {
	const copy = structuredClone(workflow);
	for (const node of copy.nodes as Node[]) edit(node);
	return { ...copy, id, name: `${copy.name} (${id})` };
}

/** The export node's CSV lines (the header first) changed by `edit`. */
const editRows = (edit: (lines: string[]) => string[]) => (node: Node) => {
	if (node.name !== 'Device export (Intune CSV)') return;
	const code = String(node.parameters.jsCode);
	const start = code.indexOf('const csv = [');
	const end = code.indexOf("].join('\\n');");
	const lines = edit(code.slice(start, end).split('\n').slice(1, -1));
	node.parameters.jsCode = `${code.slice(0, start)}const csv = [\n${lines.join('\n')}\n${code.slice(end)}`;
};
/** The export node's CSV cut to its first `rows` devices. */
const keepRows = (rows: number) => editRows((lines) => lines.slice(0, 1 + rows));

describe('a sync a person approves on a form, in real n8n', () => {
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

	/** Runs a workflow from its manual trigger; resolves when it waits (its data stored) or ends. */
	async function run(workflowId: string): Promise<StoredExecution> {
		const id = await server.rest.runWorkflow(workflowId, MANUAL);
		const execution = await home.waitForExecution(id, 120_000);
		if (execution.status !== 'waiting') return execution;
		// n8n 1.x may mark the run waiting a moment before it stores the data of the nodes that ran
		return await waitFor(
			`execution ${id}'s data`,
			() => {
				const [now] = home.readExecutions({ id });
				return now?.outputs['Approval request'] ? now : undefined;
			},
			30_000,
		);
	}
	/**
	 * Waits for a resumed run to end, with the data of what ran after the form (n8n 1.x may store
	 * the status a moment before the data, which until then is the data of the wait).
	 */
	const ended = async (execution: StoredExecution) =>
		await waitFor(
			`execution ${execution.id} to end`,
			() => {
				const [now] = home.readExecutions({ id: execution.id });
				return now && now.status !== 'waiting' && isFinished(now) && now.outputs.Decision
					? now
					: undefined;
			},
			120_000,
		);
	/** The page's text, tags and scripts left out. */
	const text = (html: string) =>
		html
			.replace(/<(script|style)[\s\S]*?<\/\1>/g, '')
			.replace(/<[^>]+>/g, ' ')
			.replace(/&(lt|gt|quot|#x27|#39|amp);/g, (_entity, name: string) =>
				name === 'lt'
					? '<'
					: name === 'gt'
						? '>'
						: name === 'quot'
							? '"'
							: name === 'amp'
								? '&'
								: "'",
			)
			.replace(/\s+/g, ' ')
			.trim();
	/**
	 * Opens the form the request links to, twice (a person, then a mail scanner), as a browser
	 * does: nothing resumes. Returns the form's text.
	 */
	async function open(execution: StoredExecution): Promise<string> {
		const url = String(execution.outputs['Approval request'][0].formUrl);
		let page = '';
		for (let i = 0; i < 2; i++) {
			const answer = await fetch(url);
			expect(answer.status).toBe(200);
			page = text(await answer.text());
		}
		expect(home.readExecutions({ id: execution.id })[0].status).toBe('waiting');
		return page;
	}
	/** Submits the form as the browser does (multipart; a radio's value is a JSON array). */
	async function submit(execution: StoredExecution, decision: string, comment = '') {
		const url = String(execution.outputs['Approval request'][0].formUrl);
		const form = new FormData();
		form.append('field-0', JSON.stringify([decision]));
		form.append('field-1', comment);
		const answer = await fetch(url, { method: 'POST', body: form });
		const page = text(await answer.text());
		return { status: answer.status, page, done: await ended(execution) };
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

	test('a first night with nothing to remove runs straight through: the dry run, then Apply Sync Plan writes its plan', async () => {
		await home.importWorkflows([approval]);
		sandbox.resetStats();
		const done = await run(approval.id!);
		expect(done.status).toBe('success');
		const [planned] = done.outputs['Sync (dry run)'];
		const [applied] = done.outputs['Apply Sync Plan'];
		expect(planned).toMatchObject({ created: 5, retired: 0, deleted: 0, cleared: 0, dryRun: true });
		expect(applied).toMatchObject({ created: 5, dryRun: false, planId: planned.planId });
		expect(done.outputs['Approval request']).toBeUndefined();
		expect(exported()).toHaveLength(5);
		// the export's user column: the register names the people
		expect(exported().find((asset) => asset.deviceName === 'MBP-ANNA')).toMatchObject({
			assignedToEmail: 'anna.berg@northwind.example',
		});
		expect(writes().map((call) => call.method)).toEqual(Array(5).fill('PUT'));
		expect(done.outputs['Rows to fix']).toHaveLength(2);
	});

	test('one device of five gone: more than the guard allows, so it is put to a person; opening the form writes nothing; Approve applies exactly the plan and the page says so', async () => {
		const tonight = variant(approval, 'stockroomExSync9Approve', keepRows(4));
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.status).toBe('waiting');
		const [planned] = waiting.outputs['Sync (dry run)'];
		expect(planned).toMatchObject({ retired: 1, wouldBeRefusedBy: 'guard' });
		const [request] = waiting.outputs['Approval request'];
		expect(request.subject).toBe('Sync plan: would retire 1');
		expect(String(request.html)).toMatch(
			/^<p><b>Without your approval the guard stops this plan:<\/b> Sync stopped by its guard: it would retire 1 of the 5 assets/,
		);
		expect(String(request.html)).toContain('<h3>Would retire (1)</h3>');
		expect(String(request.html)).toContain('LAT-EVA (CN0MDM0005)');
		expect(String(request.html)).toContain(`<a href="${String(request.formUrl)}">`);

		const form = await open(waiting);
		expect(form).toContain("Approve tonight's device sync?");
		expect(form).toContain(
			`Plan ${String(planned.planId)} would create 0, update 0, restore 0, retire 1 and delete 0 devices`,
		);
		expect(writes()).toEqual([]);

		const { status, page, done } = await submit(waiting, APPROVE, 'LAT-EVA was sold');
		expect(status).toBe(200);
		expect(page).toContain(`Applied Applied: 1 retired (plan ${String(planned.planId)}).`);
		expect(done.status).toBe('success');
		expect(done.outputs['Apply Sync Plan'][0]).toMatchObject({
			retired: 1,
			created: 0,
			updated: 0,
			planId: planned.planId,
		});
		expect(writes().map((call) => [call.method, call.body])).toEqual([
			['PATCH', { status: 'Retired' }],
		]);
		expect(exported().find((asset) => asset.deviceName === 'LAT-EVA')!.status).toBe('Retired');
	});

	test('reject: nothing is written, and the page says so', async () => {
		const tonight = variant(approval, 'stockroomExSync9Reject', keepRows(3));
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.outputs['Approval request'][0].subject).toBe('Sync plan: would retire 1');
		const { page, done } = await submit(waiting, 'Reject', 'not <tonight>');
		expect(page).toContain('Rejected Nothing was written. Your comment: not <tonight>');
		expect(done.status).toBe('success');
		expect(done.outputs['Show: rejected']).toHaveLength(1);
		expect(done.outputs['Apply Sync Plan']).toBeUndefined();
		expect(writes()).toEqual([]);
	});

	test('a device the approved plan retires is re-issued by the service desk before the click (issue 38): still refused naming it; nothing written', async () => {
		const tonight = variant(approval, 'stockroomExSync9Edited', keepRows(3));
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.status).toBe('waiting');
		const [request] = waiting.outputs['Approval request'];
		expect(String(request.html)).toContain('TP-DAN (PF3MDM0004)');
		expect(writes()).toEqual([]);
		// the person approves "retire TP-DAN"; meanwhile the service desk re-issues the device to an
		// employee (fields the sync does not own)
		const employee = sandbox.store.users.all().find((user) => user.active)!;
		const dan = exported().find((asset) => asset.deviceName === 'TP-DAN')!;
		const edited = await serviceDeskEdit(dan.id, {
			assignedToEmail: employee.userName,
			notes: 'Re-issued: do not retire',
		});
		expect(edited.lastModifiedDtm).not.toBe(dan.lastModifiedDtm);
		sandbox.resetStats();
		const { page, done } = await submit(waiting, APPROVE);
		const first = `Apply Sync Plan refused: the register changed since the dry run: PF3MDM0004 ("TP-DAN" · ${String(employee.displayName)}) was edited since the dry run (modified ${String(edited.lastModifiedDtm)} by service-desk (API client))`;
		// the person sees why, and the run fails (n8n's error workflow alerts)
		expect(page).toContain(`Refused: nothing was written ${first}`);
		expect(done.status).toBe('error');
		expect(done.error?.node).toBe('Plan changed: fail the run');
		const lines = done.error!.message.split('\n');
		expect(lines[0]).toBe(first);
		expect(lines).toContain('Run the dry run again and approve its plan.');
		expect(done.outputs['Show: applied']).toBeUndefined();
		expect(writes()).toEqual([]);
		expect(sandbox.store.assets.get(String(dan.id))).toMatchObject({
			status: 'Deployed',
			assignedToEmail: employee.userName,
		});
	});
	test('a device the plan does not touch is renamed between the request and the click: the plan is applied as approved, and the rename stays until the next night', async () => {
		const tonight = variant(approval, 'stockroomExSync9Untouched', keepRows(3));
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		expect(waiting.status).toBe('waiting');
		const [planned] = waiting.outputs['Sync (dry run)'];
		expect(planned).toMatchObject({ retired: 1, updated: 0 });
		// someone renames Anna's laptop at the service desk while the request waits
		const anna = exported().find((asset) => asset.deviceName === 'MBP-ANNA')!;
		await serviceDeskEdit(anna.id, { deviceName: 'Anna (renamed by hand)' });
		sandbox.resetStats();
		const { page, done } = await submit(waiting, APPROVE);
		expect(page).toContain(`Applied Applied: 1 retired (plan ${String(planned.planId)}).`);
		expect(done.status).toBe('success');
		expect(writes().map((call) => [call.method, call.body])).toEqual([
			['PATCH', { status: 'Retired' }],
		]);
		expect(sandbox.store.assets.get(String(anna.id))!.deviceName).toBe('Anna (renamed by hand)');
		expect(exported().find((asset) => asset.serialNumber === 'PF3MDM0004')!.status).toBe('Retired');
	});

	test('in a browser: the approver opens the form (nothing written), picks Approve and apply, submits, and sees what was applied; the register holds exactly the plan', async () => {
		const tonight = variant(approval, 'stockroomExSync9Browser', keepRows(2));
		await home.importWorkflows([tonight]);
		sandbox.resetStats();
		const waiting = await run(tonight.id!);
		const [planned] = waiting.outputs['Sync (dry run)'];
		// TP-CARA is gone from tonight's export; Anna's laptop, renamed by hand, is named back
		expect(planned).toMatchObject({ retired: 1, created: 0, updated: 1 });
		const url = String(waiting.outputs['Approval request'][0].formUrl);
		const browser = await chromium.launch({
			executablePath: process.env.STOCKROOM_CHROMIUM ?? '/usr/bin/chromium',
			headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
		});
		try {
			const page = await browser.newPage();
			await page.goto(url);
			await page.getByText(APPROVE, { exact: true }).waitFor();
			// opened, read, not yet submitted: nothing written, the run still waits
			expect(writes()).toEqual([]);
			expect(home.readExecutions({ id: waiting.id })[0].status).toBe('waiting');
			await page.getByText(APPROVE, { exact: true }).click();
			await page.locator('textarea').fill('TP-CARA went back to the vendor');
			await page.locator('#submit-btn').click();
			await page.getByText('Applied: ', { exact: false }).waitFor({ timeout: 60_000 });
			expect(text(await page.content())).toContain(
				`Applied Applied: 1 updated, 1 retired (plan ${String(planned.planId)}).`,
			);
		} finally {
			await browser.close();
		}
		const done = await ended(waiting);
		expect(done.status).toBe('success');
		expect(done.outputs['Wait for approval'][0]).toMatchObject({
			Decision: APPROVE,
			Comment: 'TP-CARA went back to the vendor',
		});
		expect(
			writes()
				.map((call) => JSON.stringify([call.method, call.body]))
				.sort(),
		).toEqual(
			[
				['PATCH', { deviceName: 'MBP-ANNA' }],
				['PATCH', { status: 'Retired' }],
			]
				.map((write) => JSON.stringify(write))
				.sort(),
		);
		expect(exported().find((asset) => asset.deviceName === 'TP-CARA')!.status).toBe('Retired');
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

	test('an Intune export with its own date spelling syncs; then a run the guard stops, a run whose export is empty and a night of 30 rows with 30 refused each fail, and the error workflow runs for each', async () => {
		// the first night creates the five devices (dry run off), the check-ins as Intune's portal
		// CSV writes them (no zone, seven decimals); then the export shrinks, empties or every row fails
		const live = variant(example('6-device-sync.json'), 'stockroomExSync6Live', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
			editRows((lines) =>
				lines.map((line) =>
					line.replace(/(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})Z/, '$1 $2.0000000'),
				),
			)(node);
		});
		await home.importWorkflows([live]);
		const first = await home.executeWorkflow(live.id!);
		expect(first.error).toBeUndefined();
		const synced = sandbox.store.assets
			.all()
			.filter((asset) => String(asset.externalId).startsWith('MDM-'));
		expect(synced).toHaveLength(5);
		// read in the workflow's zone (UTC here) and written as every operation writes a date-time
		// (Intune's seven decimals kept to the millisecond)
		expect(synced.find((asset) => asset.deviceName === 'MBP-ANNA')!.lastSyncDtm).toBe(
			'2026-11-20T08:15:00.000Z',
		);
		expect(first.outputs['Rows to fix']).toHaveLength(2);

		const guarded = scheduled('stockroomExSync6Guard', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
			keepRows(1)(node);
		});
		const empty = scheduled('stockroomExSync6Empty', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
			keepRows(0)(node);
		});
		// a night on which the check-in column's format changed: the seven devices and 23 kiosks,
		// 30 rows, every one refused (and so no device is missing)
		const kiosks = Array.from({ length: 23 }, (_, index) => {
			const n = String(index + 1).padStart(2, '0');
			return `\t"3f9c1a20-01${n},KIOSK-${n},SNKIOSK${n},Dell,OptiPlex 7010,Windows,11 23H2,,2026-11-25",`;
		});
		const allFailed = scheduled('stockroomExSync6Rows', (node) => {
			if (node.name === 'Sync assets') node.parameters.dryRun = false;
			editRows(([header, ...rows]) =>
				[header, ...rows, ...kiosks].map((line, index) =>
					index ? line.replace(/,[^,]*",$/, ',last Tuesday",') : line,
				),
			)(node);
		});
		await home.importWorkflows([alert, guarded, empty, allFailed]);
		// n8n 2.x runs an error workflow only when it is published (1.x: in any case)
		await home.publishWorkflow(alert.id!);
		await home.publishWorkflow(guarded.id!);
		await home.publishWorkflow(empty.id!);
		await home.publishWorkflow(allFailed.id!);
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
		const rowsRun = await failed(allFailed.id!);
		expect(rowsRun.status).toBe('error');
		expect(rowsRun.error?.message).toMatch(
			/^Sync stopped by its guard: 30 of the 30 input rows failed \(100 %\), more than Max Failed Rows allows \(9: 30 % of the rows\): MBP-ANNA \(C02MDM0001\), item 0;/,
		);
		const alerts = await waitFor(
			'the error workflow to run for each',
			() => {
				const runs = home.readExecutions({ workflowId: alert.id }).filter(isFinished);
				return runs.length >= 3 ? runs : undefined;
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
