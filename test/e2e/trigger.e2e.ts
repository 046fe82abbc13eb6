import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../helpers/credential';
import { createSandbox, type JournalEntry, type Sandbox } from '../sandbox/server';
import {
	buildWorkflow,
	createN8nHome,
	delay,
	isFinished,
	NODE,
	waitFor,
	type N8nHome,
	type N8nServer,
	type StoredExecution,
} from './harness';

const DAY = 86_400_000;
const POLL_TIMES = { item: [{ mode: 'everyMinute' }] };
/** Longer than n8n's one-minute schedule, with room for a slow poll. */
const POLL_WAIT_MS = 90_000;
/** How long an emitted poll may take to be stored as an execution. */
const STORE_WAIT_MS = 20_000;

/** Each trigger node, and how to recognise its list requests in the sandbox's journal. */
const TRIGGERS = {
	'Assets changed': {
		parameters: { resource: 'assets', event: 'recordChanged' },
		polled: (call: JournalEntry) => call.path === '/api/assets/v1' && 'since' in call.query,
	},
	'Assets synced': {
		parameters: { resource: 'assets', event: 'assetSynced' },
		polled: (call: JournalEntry) => call.query.filter?.startsWith('lastSyncDtm ge') === true,
	},
	'Agreements dated': {
		parameters: { resource: 'contracts', event: 'contractAgreementDated' },
		polled: (call: JournalEntry) => call.query.filter?.startsWith('agreementDate ge') === true,
	},
	'Renewal notices': {
		parameters: { resource: 'contracts', event: 'renewalNoticeDue', withinDays: 60 },
		polled: (call: JournalEntry) => call.query.filter?.includes('renewalDate ge') === true,
	},
	'E2E contracts changed': {
		parameters: {
			resource: 'contracts',
			event: 'recordChanged',
			filterMode: 'manual',
			conditions: { condition: [{ field: 'vendorName', operator: 'sw', value: 'E2E' }] },
		},
		polled: (call: JournalEntry) => call.query.filter === 'vendorName sw "E2E"',
	},
};
type TriggerName = keyof typeof TRIGGERS;
const TRIGGER_NAMES = Object.keys(TRIGGERS) as TriggerName[];

/** The ids each trigger emitted, sorted (a trigger that emitted nothing is left out). */
type Emitted = Partial<Record<TriggerName, string[]>>;

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('Stockroom Trigger published in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer | undefined;
	let workflowId: string;
	let customFilterWorkflowId: string;
	let token: string;
	/** Executions already looked at. */
	let seen = 0;
	const today = isoDate(Date.now());

	/** A write through the service's API, as another client of the service would make it. */
	async function write(method: 'PUT' | 'PATCH', path: string, body: IDataObject) {
		const response = await fetch(`${sandbox.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		expect(response.status).toBe(200);
		return (await response.json()) as IDataObject;
	}
	const putContract = (externalId: string, vendorName: string, extra: IDataObject = {}) =>
		write('PUT', '/api/contracts/v1', {
			externalId,
			ref: `PO-${externalId}`,
			type: 'OrderForm',
			vendorName,
			agreementDate: today,
			...extra,
		});
	const syncAsset = (index: number) =>
		write('PATCH', `/api/assets/v1/${sandbox.store.assets.all()[index].id}`, {
			lastSyncDtm: new Date().toISOString(),
		});

	/** Waits until every trigger has polled since the last `resetStats()`. */
	const everyTriggerPolled = () =>
		waitFor(
			'a poll of every trigger',
			() => {
				const done = sandbox.journal().filter((call) => call.status !== undefined);
				return TRIGGER_NAMES.every((name) => done.some(TRIGGERS[name].polled)) ? true : undefined;
			},
			POLL_WAIT_MS,
		);

	/** The executions stored since the last call, in order. */
	function newExecutions(): StoredExecution[] {
		return home.readExecutions({ workflowId }).slice(seen);
	}

	/** What the executions emitted, per trigger; every execution is one trigger's. */
	function emittedBy(executions: StoredExecution[]): Emitted {
		const emitted: Emitted = {};
		for (const execution of executions) {
			expect(execution).toMatchObject({ mode: 'trigger', status: 'success' });
			const fired = Object.keys(execution.outputs) as TriggerName[];
			expect(fired).toHaveLength(1);
			const ids = execution.outputs[fired[0]].map((item) => String(item.id));
			emitted[fired[0]] = [...(emitted[fired[0]] ?? []), ...ids].sort();
		}
		return emitted;
	}

	/**
	 * Waits for every trigger to poll (the changes were made before `resetStats()`), then for the
	 * expected number of emitted records to be stored, then a little longer for any extra one.
	 * A change is counted wherever it is emitted: a poll may run while the changes are written.
	 */
	async function emittedAfterPolls(expectedRecords: number): Promise<StoredExecution[]> {
		await everyTriggerPolled();
		const finished = () => {
			const executions = newExecutions();
			return executions.every(isFinished) ? executions : undefined;
		};
		const records = (executions: StoredExecution[]) =>
			executions.flatMap((execution) => Object.values(execution.outputs).flat()).length;
		await waitFor(
			`${expectedRecords} emitted records`,
			() => {
				const executions = finished();
				return executions && records(executions) >= expectedRecords ? true : undefined;
			},
			STORE_WAIT_MS,
		);
		await delay(3000);
		const executions = await waitFor('the executions to finish', finished, STORE_WAIT_MS);
		seen += executions.length;
		return executions;
	}

	const sortedIds = (emitted: Record<string, IDataObject[]>): Emitted =>
		Object.fromEntries(
			Object.entries(emitted).map(([name, records]) => [
				name,
				records.map((record) => String(record.id)).sort(),
			]),
		);

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		token = sandbox.token();
		home = await createN8nHome();
		const credential = { id: 'stockroomTriggerE2e', name: 'Stockroom' };
		await home.importCredential({ ...credential, ...sandboxCredentialInput(sandbox) });
		[workflowId, customFilterWorkflowId] = await home.importWorkflows([
			buildWorkflow(
				'Stockroom triggers',
				credential,
				TRIGGER_NAMES.map((name) => [
					{
						name,
						type: NODE.trigger,
						parameters: { ...TRIGGERS[name].parameters, pollTimes: POLL_TIMES },
					},
				]),
				{ start: false, settings: { timezone: 'UTC' } },
			),
			buildWorkflow(
				'Stockroom trigger on a custom field',
				credential,
				[
					[
						{
							name: 'Synced, 20 GB or more',
							type: NODE.trigger,
							parameters: {
								...TRIGGERS['Assets synced'].parameters,
								pollTimes: POLL_TIMES,
								filterMode: 'manual',
								conditions: {
									condition: [{ field: 'customFieldValues.memoryGb', operator: 'ge', value: '20' }],
								},
							},
						},
					],
				],
				{ start: false },
			),
		]);
		await home.publishWorkflow(workflowId);
	});

	afterAll(async () => {
		await server?.stop();
		home?.dispose();
		await sandbox?.close();
	});

	test('activation ("from now on") emits nothing for what exists, recent changes included', async () => {
		// changes from just before activation: inside every trigger's lookback, but not new
		await syncAsset(0);
		await putContract('E2E-PRE', 'E2E Before', { renewalDate: isoDate(Date.now() + 20 * DAY) });
		sandbox.resetStats();

		server = await home.start();
		await everyTriggerPolled();
		await delay(3000);

		expect(home.readExecutions({ workflowId })).toEqual([]);
	});

	test('each change reaches exactly one execution of each trigger it concerns', async () => {
		const created = await write('PUT', '/api/assets/v1', {
			externalId: 'E2E-A1',
			deviceName: 'Trigger laptop',
			status: 'New',
			hardwareVendor: 'Dell',
			assetType: 'Laptop',
		});
		const synced = await syncAsset(1);
		// notice deadline in 10 days
		const due = await putContract('E2E-C1', 'E2E Vendor', {
			renewalDate: isoDate(Date.now() + 40 * DAY),
			terminationNoticeDays: 30,
		});
		// matches none of the triggers: another vendor, an old agreement date
		await putContract('OTHER-C2', 'Other Vendor', { agreementDate: '2020-01-01' });
		sandbox.resetStats();

		const executions = await emittedAfterPolls(6);

		expect(emittedBy(executions)).toEqual(
			sortedIds({
				'Assets changed': [synced, created],
				'Assets synced': [synced],
				'Agreements dated': [due],
				'Renewal notices': [due],
				'E2E contracts changed': [due],
			}),
		);
		const renewal = executions.find((execution) => 'Renewal notices' in execution.outputs)!;
		expect(renewal.outputs['Renewal notices']).toEqual([
			expect.objectContaining({
				...due,
				event: 'renewalNoticeDue',
				noticeDeadline: isoDate(Date.now() + 10 * DAY),
				daysUntilNoticeDeadline: 10,
			}),
		]);
		const change = executions.find((execution) => 'Assets synced' in execution.outputs)!;
		expect(change.outputs['Assets synced']).toEqual([{ ...synced, event: 'assetSynced' }]);
	});

	test('across a restart: changes made while n8n was down are emitted once, nothing earlier again', async () => {
		await server!.stop();
		server = undefined;
		const renamed = await write(
			'PATCH',
			`/api/assets/v1/${String(sandbox.store.assets.findByExternalId('E2E-A1')!.id)}`,
			{ deviceName: 'Renamed while n8n was down' },
		);
		// a new renewal date is a new reminder; the agreement date is unchanged
		const moved = await putContract('E2E-C1', 'E2E Vendor', {
			renewalDate: isoDate(Date.now() + 45 * DAY),
			terminationNoticeDays: 30,
		});
		const signed = await putContract('E2E-C3', 'E2E Newer Vendor');
		sandbox.resetStats();

		server = await home.start();
		const executions = await emittedAfterPolls(5);

		expect(emittedBy(executions)).toEqual(
			sortedIds({
				'Assets changed': [renamed],
				'Agreements dated': [signed],
				'Renewal notices': [moved],
				'E2E contracts changed': [moved, signed],
			}),
		);
	});

	test('after the restart, scheduled polls emit only what is new', async () => {
		const synced = await syncAsset(2);
		sandbox.resetStats();

		const executions = await emittedAfterPolls(2);

		expect(emittedBy(executions)).toEqual(
			sortedIds({ 'Assets changed': [synced], 'Assets synced': [synced] }),
		);
	});

	test('while the service fails, polls emit nothing and keep their place; after it recovers each change is emitted once', async () => {
		const synced = await syncAsset(3);
		const signed = await putContract('E2E-C4', 'E2E Fault Vendor');
		// a 500 is not retried: every poll fails at once
		sandbox.setFaults('500:1');
		sandbox.resetStats();

		await everyTriggerPolled();
		await delay(3000);
		expect(sandbox.journal().every((call) => call.status === 500)).toBe(true);
		const duringFault = newExecutions();
		expect(duringFault.filter((execution) => execution.status === 'success')).toEqual([]);
		seen += duringFault.length;

		sandbox.setFaults('');
		sandbox.resetStats();
		const executions = await emittedAfterPolls(4);

		expect(emittedBy(executions)).toEqual(
			sortedIds({
				'Assets changed': [synced],
				'Assets synced': [synced],
				'Agreements dated': [signed],
				'E2E contracts changed': [signed],
			}),
		);
	});

	test('"Fetch Test Event" shows the most recently synced asset', async () => {
		const latest = sandbox.store.assets
			.all()
			.filter((record) => typeof record.lastSyncDtm === 'string')
			.reduce((a, b) => (String(a.lastSyncDtm) >= String(b.lastSyncDtm) ? a : b));

		const sample = await home.waitForExecution(
			await server!.rest.runManually(workflowId, 'Assets synced'),
		);

		expect(sample).toMatchObject({ mode: 'manual', status: 'success' });
		expect(sample.outputs['Assets synced']).toEqual([{ ...latest, event: 'assetSynced' }]);
	});

	test('a custom field condition in the trigger compares numbers as numbers', async () => {
		const memoryOf = (record: Record<string, unknown>) =>
			(record.customFieldValues as { memoryGb?: { numberValue: number } } | undefined)?.memoryGb
				?.numberValue;
		const index = (gigabytes: number) =>
			sandbox.store.assets.all().findIndex((record) => memoryOf(record) === gigabytes);
		// the 8 GB asset syncs last: "8" would pass a text comparison with "20"
		const large = await syncAsset(index(32));
		await syncAsset(index(8));
		sandbox.resetStats();

		const sample = await home.waitForExecution(
			await server!.rest.runManually(customFilterWorkflowId, 'Synced, 20 GB or more'),
		);

		expect(sample.outputs['Synced, 20 GB or more']).toEqual([{ ...large, event: 'assetSynced' }]);
		const sent = sandbox
			.journal()
			.map((call) => call.query.filter)
			.find((filter) => filter?.startsWith('customFieldValues'));
		expect(sent).toMatch(/^customFieldValues\.memoryGb ge 20 and lastSyncDtm ge "/);
	});
});
