import { readFileSync } from 'node:fs';
import path from 'node:path';

import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import {
	createN8nHome,
	EXAMPLE_CREDENTIAL,
	exampleWorkflows,
	queryDb,
	importMissingExamples,
	waitFor,
	type N8nHome,
	type StoredExecution,
} from '../../scripts/n8n';

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** A calendar date `days` later (or earlier). */
const addDays = (date: string, days: number) => dayOf(Date.parse(`${date}T00:00:00Z`) + days * DAY);

/** The last day to give notice on a contract: its renewal date minus the notice days. */
const noticeDay = (contract: Record<string, unknown>) =>
	addDays(String(contract.renewalDate).slice(0, 10), -Number(contract.terminationNoticeDays ?? 0));

/** Each example's workflow id, by file name. */
const exampleId = (file: string) =>
	exampleWorkflows().find((example) => example.file === file)!.workflow.id!;

describe('the examples in real n8n, against the demo sandbox', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	const today = dayOf(Date.now());

	beforeAll(async () => {
		// the data `npm start` serves
		sandbox = await createSandbox();
		home = await createN8nHome({ env: { GENERIC_TIMEZONE: 'UTC' } });
		await home.importCredential({ ...EXAMPLE_CREDENTIAL, ...sandboxCredentialInput(sandbox) });
		// what `npm start` does
		expect(await importMissingExamples(home)).toHaveLength(exampleWorkflows().length);
	});

	afterAll(async () => {
		await home?.dispose();
		await sandbox?.close();
	});

	test('every example uses only this package’s nodes and n8n’s core nodes, and has a note', () => {
		for (const { workflow } of exampleWorkflows()) {
			const nodes = workflow.nodes as Array<{ type: string; credentials?: unknown }>;
			for (const node of nodes) {
				expect(node.type).toMatch(/^(n8n-nodes-stockroom|n8n-nodes-base)\./);
				if (node.type.startsWith('n8n-nodes-stockroom.')) {
					expect(node.credentials).toEqual({ stockroomOAuth2Api: EXAMPLE_CREDENTIAL });
				}
			}
			expect(nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote')).toBe(true);
		}
	});

	test('1 inventory sync: creates, then updates; the invalid row fails alone', async () => {
		const id = exampleId('1-inventory-sync.json');
		const first = await home.executeWorkflow(id);
		const second = await home.executeWorkflow(id);

		expect(first.error).toBeUndefined();
		const failure = {
			externalId: 'INV-1005',
			error: expect.stringMatching(/^Invalid asset: /),
			details: expect.stringMatching(
				/Status \(status\): .*Lost[\s\S]*Purchased Date \(purchasedDate\): /,
			),
		};
		const valid = ['INV-1001', 'INV-1002', 'INV-1003', 'INV-1004'];
		expect(first.outputs.Summary).toEqual([
			{
				created: 4,
				updated: 0,
				failed: 1,
				createdIds: valid,
				updatedIds: [],
				failures: [failure],
			},
		]);
		expect(second.outputs.Summary).toEqual([
			{
				created: 0,
				updated: 4,
				failed: 1,
				createdIds: [],
				updatedIds: valid,
				failures: [failure],
			},
		]);
		expect(sandbox.store.assets.findByExternalId('INV-1001')).toMatchObject({
			deviceName: 'MacBook Pro 14 (Design team)',
			status: 'Deployed',
			purchasedDate: '2024-03-12T00:00:00Z',
			netPrice: 2399,
			netPriceCurrency: 'EUR',
		});
		expect(sandbox.store.assets.findByExternalId('INV-1005')).toBeUndefined();
	});

	test('2 stale devices report: every asset not synced for 30 days or never, as CSV', async () => {
		const cutoff = new Date(Date.now() - 30 * DAY).toISOString();
		const stale = sandbox.store.assets
			.all()
			.filter((asset) => asset.lastSyncDtm === undefined || String(asset.lastSyncDtm) < cutoff);

		const run = await home.executeWorkflow(exampleId('2-stale-devices-report.json'));

		expect(run.error).toBeUndefined();
		const filters = sandbox.journal().map((call) => call.query.filter);
		expect(filters).toContainEqual(
			expect.stringMatching(/^lastSyncDtm lt "[\d-]{10}T[\d:.]+Z" or not \(lastSyncDtm pr\)$/),
		);
		const rows = run.outputs['Report rows'];
		expect(rows.map((row) => row.externalId).sort()).toEqual(
			stale.map((asset) => asset.externalId).sort(),
		);
		const never = stale.filter((asset) => asset.lastSyncDtm === undefined);
		expect(rows.slice(0, never.length).every((row) => row.lastSynced === 'never')).toBe(true);
		const days = rows.slice(never.length).map((row) => row.daysSinceSync as number);
		expect(days).toEqual([...days].sort((a, b) => b - a));
		expect(days.every((value) => value >= 30)).toBe(true);

		const file = run.data.resultData.runData['Stale devices CSV'][0].data!.main[0]![0].binary!.data;
		expect(file).toMatchObject({ fileName: 'stale-devices.csv', mimeType: 'text/csv' });
		// n8n 2.x keeps binary data in files (`id` is `filesystem-v2:<path under .n8n/storage>`),
		// n8n 1.x by default in the execution, as base64
		const text = file.id
			? readFileSync(path.join(home.userFolder, '.n8n', 'storage', file.id.split(':')[1]), 'utf8')
			: Buffer.from(file.data, 'base64').toString('utf8');
		const csv = text.trim().split('\n');
		expect(csv[0]).toBe('device,externalId,status,assignedTo,platform,lastSynced,daysSinceSync');
		expect(csv).toHaveLength(rows.length + 1);
	});

	test('4 contract intake: line items updated per the rules, documents kept', async () => {
		const run = await home.executeWorkflow(exampleId('4-contract-intake.json'));

		expect(run.error).toBeUndefined();
		const [created] = run.outputs['Create contract'];
		const [contract] = run.outputs['Get contract'];
		expect(contract).toEqual(run.outputs['Apply amendment'][0]);
		expect(contract).toMatchObject({
			id: created.id,
			externalId: 'INTAKE-2026-001',
			notes: 'Amendment 1: 15 more Organization seats; support bundled.',
			documents: created.documents,
		});
		// relative to today in the workflow's time zone (UTC here)
		expect(contract.renewalDate).toBe(
			`${DateTime.utc().plus({ months: 2 }).toISODate()}T00:00:00Z`,
		);
		expect(created.lineItems).toHaveLength(4);
		expect(created.documents).toHaveLength(2);
		const summary = (record: IDataObject) =>
			(record.lineItems as IDataObject[]).map((item) => [
				item.externalId,
				item.description,
				item.unitCount,
				item.baseAmount,
			]);
		expect(summary(contract)).toEqual([
			['FIG-ORG-SEATS', 'Organization plan seats', 55, 2475],
			['FIG-DEV-SEATS', 'Dev Mode seats', 10, 250],
			[undefined, 'Onboarding and priority support bundle', undefined, 3000],
		]);
	});

	test('5 a million assets, one page per run: every asset not retired once, a request per page, nothing left behind', async () => {
		// enough assets for three pages: the loop goes round
		const first = sandbox.store.assets.all()[0];
		for (let index = 0; index < 2200; index++) {
			const { id: _id, ...fields } = first;
			sandbox.store.assets.put({
				...fields,
				externalId: `MILLION-${index}`,
				status: index % 10 === 0 ? 'Retired' : 'Deployed',
				platform: index % 3 === 0 ? 'macOS' : 'Windows',
			});
		}
		const expected = sandbox.store.assets.all().filter((asset) => asset.status !== 'Retired');
		const platforms: Record<string, number> = {};
		for (const asset of expected) {
			const platform = String(asset.platform ?? 'unknown');
			platforms[platform] = (platforms[platform] ?? 0) + 1;
		}
		sandbox.resetStats();
		// as from the editor (n8n 2.x calls a sub-workflow's draft only in manual runs)
		const server = await home.start();
		let run: Awaited<ReturnType<N8nHome['waitForExecution']>>;
		try {
			const id = exampleId('5-million-assets.json');
			run = await home.waitForExecution(
				await server.rest.runWorkflow(id, 'When clicking ‘Execute workflow’'),
				120_000,
			);
		} finally {
			await server.stop();
		}

		expect(run.error).toBeUndefined();
		const pages = Math.ceil(expected.length / 1000);
		expect(pages).toBeGreaterThan(1);
		expect(run.outputs.Done).toEqual([
			{ next: '', total: expected.length, pages, byPlatform: platforms },
		]);
		const lists = sandbox.journal().filter((call) => call.path === '/api/assets/v1');
		expect(lists).toHaveLength(pages);
		expect(lists.every((call) => call.query.filter === 'not (status eq "Retired")')).toBe(true);
		// the loop went round once per page; the parent kept only cursors and totals
		const loops = run.data.resultData.runData['Sync one page'];
		expect(loops).toHaveLength(pages);
		expect(JSON.stringify(loops).length).toBeLessThan(2000 * pages);
		const saved = queryDb<{ id: number; status: string; size: number }>(
			home.dbPath,
			'SELECT e.id, e.status, LENGTH(d.data) AS size FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = ?',
			exampleId('5-million-assets-page.json'),
		);
		// the sub-workflow's successful runs are not saved: what n8n's database holds of them is the
		// run's start (under 4 kB each), none of the page's records
		expect(saved.every((execution) => execution.size < 4000)).toBe(true);
	});

	test('3 renewal reminders: published, a message per contract due within 60 days; Fetch Test Event', async () => {
		// one contract certainly due: renews in 20 days, 30 days' notice (the deadline has passed)
		sandbox.store.contracts.put({
			...sandbox.store.contracts.all()[0],
			id: undefined,
			externalId: 'E2E-DUE-1',
			renewalDate: `${addDays(today, 20)}T00:00:00Z`,
			terminationNoticeDays: 30,
			isAutomaticRenewal: true,
			businessOwnerEmail: 'owner@example.com',
		});
		// renewing from today on, the last day to give notice at most 60 days away
		const due = sandbox.store.contracts
			.all()
			.filter(
				(contract) =>
					typeof contract.renewalDate === 'string' &&
					contract.renewalDate.slice(0, 10) >= today &&
					noticeDay(contract) <= addDays(today, 60),
			);
		// the contract intake example's contract renews in two months with 30 days' notice
		expect(due.map((contract) => contract.externalId)).toContain('INTAKE-2026-001');
		const id = exampleId('3-renewal-reminders.json');
		await home.publishWorkflow(id);

		const server = await home.start();
		let activation: StoredExecution;
		let sample: StoredExecution;
		try {
			// the activation poll emits the contracts already due (Existing Records: Include)
			const first = await waitFor(
				'the activation execution',
				() => home.readExecutions({ workflowId: id })[0],
				30_000,
			);
			activation = await home.waitForExecution(first.id);
			// the editor's "Fetch Test Event" on the trigger
			sample = await home.waitForExecution(await server.rest.runManually(id, 'Renewal notice due'));
		} finally {
			await server.stop();
		}

		expect(activation).toMatchObject({ mode: 'trigger', status: 'success' });
		expect(home.readExecutions({ workflowId: id }).map((execution) => execution.mode)).toEqual([
			'trigger',
			'manual',
		]);
		const messages = activation.outputs['Reminder message'];
		expect(messages.map((message) => message.contractId).sort()).toEqual(
			due.map((contract) => contract.id).sort(),
		);
		expect(activation.outputs['Send reminder (replace me)']).toEqual(messages);
		expect(sample).toMatchObject({ mode: 'manual', status: 'success' });
		const soonest = [...due].sort((a, b) => noticeDay(a).localeCompare(noticeDay(b)))[0];
		expect(sample.outputs['Renewal notice due']).toEqual([
			expect.objectContaining({ id: soonest.id, noticeDeadline: noticeDay(soonest) }),
		]);
		const mine = sandbox.store.contracts.findByExternalId('E2E-DUE-1')!;
		expect(messages.find((message) => message.contractId === mine.id)).toEqual({
			contractId: mine.id,
			to: 'owner@example.com',
			subject: `Notice due by ${addDays(today, -10)}: ${String(mine.vendorName)} (E2E-DUE-1)`,
			text: `The contract E2E-DUE-1 with ${String(mine.vendorName)} (ref ${String(mine.ref)}) renews automatically on ${addDays(today, 20)}.\nTo cancel or renegotiate, give notice by ${addDays(today, -10)}: that day has passed (30 days' notice).`,
		});
	});
});
