import type { IDataObject } from 'n8n-workflow';

import { sandboxCredentialInput } from '../../sandbox/credential';
import { createSandbox, type Sandbox } from '../../sandbox/server';
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
} from '../../scripts/n8n';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** n8n accepts one cron entry per fixed second: twelve of them poll every 5 seconds. */
const POLL_EVERY_MS = 5000;
const POLL_TIMES = {
	item: Array.from({ length: 60_000 / POLL_EVERY_MS }, (_, index) => ({
		mode: 'custom',
		cronExpression: `${(index * POLL_EVERY_MS) / 1000} * * * * *`,
	})),
};
/** A poll of every trigger and some: anything emitted a second time would show by then. */
const NEXT_POLL_MS = POLL_EVERY_MS + 5000;
/** Long enough for every trigger to meet each kind of fault (each is drawn at random per call). */
const FAULT_WINDOW_MS = 20_000;
const BULK = 20_000;

/** The trigger nodes of one published workflow. */
const TRIGGERS = {
	'Assets synced': { resource: 'assets', event: 'assetSynced' },
	'Assets changed': { resource: 'assets', event: 'recordChanged' },
	'Agreements dated': { resource: 'contracts', event: 'contractAgreementDated' },
	'Renewal notices': { resource: 'contracts', event: 'renewalNoticeDue', withinDays: 60 },
	'E2E contracts changed': {
		resource: 'contracts',
		event: 'recordChanged',
		filterMode: 'manual',
		conditions: { condition: [{ field: 'vendorName', operator: 'sw', value: 'E2E' }] },
	},
};
type TriggerName = keyof typeof TRIGGERS;

/** The ids each trigger emitted, sorted (a trigger that emitted nothing is left out). */
type Emitted = Partial<Record<TriggerName, string[]>>;

const iso = (ms: number) => new Date(ms).toISOString();
const isoDate = (ms: number) => iso(ms).slice(0, 10);

describe('Stockroom Trigger published in real n8n', () => {
	let sandbox: Sandbox;
	let home: N8nHome;
	let server: N8nServer | undefined;
	let workflowId: string;
	let customFilterWorkflowId: string;
	/** A published workflow of one trigger: Asset Synced, Deployed assets only. */
	let deployedWorkflowId: string;
	/** A service of its own for the sweep: a fleet small enough that a sweep cut short could forget. */
	let small: Sandbox;
	/** A published workflow of one trigger, Asset Synced over `small`, in pages of 20. */
	let sweepWorkflowId: string;
	let token: string;
	/** The last execution already looked at. */
	let seen: string | undefined;
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
	const syncAsset = (index: number, at = Date.now()) =>
		write('PATCH', `/api/assets/v1/${sandbox.store.assets.all()[index].id}`, {
			lastSyncDtm: iso(at),
		});

	/**
	 * The failed executions among these, each checked to have been a poll of the faulty service: a
	 * failed poll is stored without a start (n8n records the failure alone, when it ends), so it
	 * must have ended by the time a poll in flight when the faults stopped did.
	 */
	function failedWhileFaulty(executions: StoredExecution[], clearedAt: number): StoredExecution[] {
		const failed = executions.filter((execution) => execution.status !== 'success');
		for (const execution of failed) {
			expect(Date.parse(execution.startedAt ?? execution.stoppedAt ?? '')).toBeLessThan(
				clearedAt + 5000,
			);
		}
		return failed;
	}

	/** The executions stored since the last call, in order. */
	function newExecutions(): StoredExecution[] {
		return home.readExecutions({ workflowId, afterId: seen });
	}

	/** The executions stored since the last call once every one has finished, else undefined. */
	function finishedExecutions(): StoredExecution[] | undefined {
		const executions = newExecutions();
		return executions.every(isFinished) ? executions : undefined;
	}

	/** How many records the executions emitted, all triggers together. */
	const recordsIn = (executions: StoredExecution[]) =>
		executions.flatMap((execution) => Object.values(execution.outputs).flat()).length;

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

	const sortedIds = (emitted: Partial<Record<TriggerName, IDataObject[]>>): Emitted =>
		Object.fromEntries(
			Object.entries(emitted).map(([name, records]) => [
				name,
				records.map((record) => String(record.id)).sort(),
			]),
		);

	/**
	 * Waits until the executions since the last call hold at least `records` emitted records, then
	 * for one more poll of every trigger (anything emitted twice would show), and returns them.
	 */
	async function emittedAfterPolls(
		records: number,
		timeoutMs = 90_000,
	): Promise<StoredExecution[]> {
		await waitFor(
			`${records} emitted records`,
			() => {
				const executions = finishedExecutions();
				return executions && recordsIn(executions) >= records ? true : undefined;
			},
			timeoutMs,
		);
		await delay(NEXT_POLL_MS);
		const executions = await waitFor('the executions to finish', finishedExecutions, 30_000);
		seen = executions.at(-1)?.id ?? seen;
		return executions;
	}

	/** An Asset Synced trigger node whose filter, built manually, is this one condition. */
	const syncedWhere = (name: string, condition: IDataObject) => ({
		name,
		type: NODE.trigger,
		parameters: {
			...TRIGGERS['Assets synced'],
			pollTimes: POLL_TIMES,
			filterMode: 'manual',
			conditions: { condition: [condition] },
		},
	});

	// five n8n commands (one import of the credentials, one of the workflows, a publish of each
	// that polls): on a busy machine with nothing compiled yet, each can take half a minute
	beforeAll(async () => {
		sandbox = await createSandbox({ records: 25_000 });
		small = await createSandbox({ records: 120, seed: 7 });
		token = sandbox.token();
		home = await createN8nHome();
		const credential = { id: 'stockroomTriggerE2e', name: 'Stockroom' };
		const smallCredential = { id: 'stockroomTriggerE2eSmall', name: 'Stockroom (small)' };
		await home.importCredentials([
			{ ...credential, ...sandboxCredentialInput(sandbox) },
			{ ...smallCredential, ...sandboxCredentialInput(small) },
		]);
		[workflowId, customFilterWorkflowId, deployedWorkflowId, sweepWorkflowId] =
			await home.importWorkflows([
				buildWorkflow(
					'Stockroom triggers',
					credential,
					(Object.keys(TRIGGERS) as TriggerName[]).map((name) => [
						{ name, type: NODE.trigger, parameters: { ...TRIGGERS[name], pollTimes: POLL_TIMES } },
					]),
					{ start: false, settings: { timezone: 'UTC' } },
				),
				buildWorkflow(
					'Stockroom trigger on a custom field',
					credential,
					[
						[
							syncedWhere('Synced, 20 GB or more', {
								field: 'customFieldValues.memoryGb',
								operator: 'ge',
								value: '20',
							}),
						],
					],
					{ start: false },
				),
				buildWorkflow(
					'Stockroom trigger on Deployed assets',
					credential,
					[
						[
							syncedWhere('Deployed synced', {
								field: 'status',
								operator: 'eq',
								statusValue: 'Deployed',
							}),
						],
					],
					{ start: false, settings: { timezone: 'UTC' } },
				),
				buildWorkflow(
					'Stockroom trigger sweeping a small fleet',
					smallCredential,
					[
						[
							{
								name: 'Synced (small fleet)',
								type: NODE.trigger,
								parameters: {
									...TRIGGERS['Assets synced'],
									pollTimes: POLL_TIMES,
									options: { pageSize: 20 },
								},
							},
						],
					],
					{ start: false },
				),
			]);
		for (const id of [workflowId, deployedWorkflowId, sweepWorkflowId])
			await home.publishWorkflow(id);
	}, 300_000);

	// a test that fails while the service is faulty leaves it well for the next
	afterEach(() => {
		sandbox?.setFaults('');
		sandbox?.setCursorTtl(undefined);
		small?.setFaults('');
	});

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
		await sandbox?.close();
		await small?.close();
	});

	test('activation ("from now on") emits nothing for what exists, recent changes included', async () => {
		await syncAsset(0, Date.now() - 60_000);
		await putContract('E2E-PRE', 'E2E Before', { renewalDate: isoDate(Date.now() + 20 * DAY) });

		server = await home.start();
		await delay(NEXT_POLL_MS);

		expect(home.readExecutions({ workflowId })).toEqual([]);
	});

	test('a sweep that meets empty pages with a next link forgets no asset that exists: edits of another field start no execution; a sync, one', async () => {
		const before = home.readExecutions({ workflowId: sweepWorkflowId }).at(-1)?.id;
		const executions = () => home.readExecutions({ workflowId: sweepWorkflowId, afterId: before });
		// half a day later on the service's clock: the next poll begins a sweep, which meets pages
		// with no records and a next link (as a service that ran out of time for a page sends)
		const later = 13 * HOUR;
		small.setClock(() => new Date(Date.now() + later));
		small.setFaults('empty:0.5');
		small.resetStats();
		// the sweep has ended once the service has had no request of it (no `since`) for two polls
		const sweepCalls = () => small.journal().filter((call) => call.query.since === undefined);
		let [calls, changedAt] = [0, Date.now()];
		await waitFor(
			'the sweep to end',
			() => {
				if (sweepCalls().length !== calls) [calls, changedAt] = [sweepCalls().length, Date.now()];
				return calls > 0 && Date.now() - changedAt > 2 * POLL_EVERY_MS + 2000 ? true : undefined;
			},
			120_000,
		);
		small.setFaults('');
		expect(
			small.journal().filter((call) => call.fault === 'empty' && call.query.since === undefined),
		).not.toEqual([]);

		// every asset edited in another field, as another client of the service would
		const stamp = () => new Date(Date.now() + later).toISOString();
		for (const record of small.store.assets.all())
			small.store.assets.put({
				...record,
				notes: 'edited after the sweep',
				lastModifiedDtm: stamp(),
			});
		await delay(2 * NEXT_POLL_MS);
		expect(executions()).toEqual([]);

		const synced = {
			...small.store.assets.all()[7],
			lastSyncDtm: stamp(),
			lastModifiedDtm: stamp(),
		};
		small.store.assets.put(synced);
		const [run] = await waitFor(
			'the sync to be emitted',
			() => {
				const runs = executions();
				return runs.length && runs.every(isFinished) ? runs : undefined;
			},
			60_000,
		);
		await delay(NEXT_POLL_MS);
		expect(executions()).toHaveLength(1);
		expect(run.outputs['Synced (small fleet)']).toEqual([{ ...synced, event: 'assetSynced' }]);
	});

	test('late, far-future and backdated values are each emitted once, and changes keep flowing after 2205', async () => {
		const late = await syncAsset(1, Date.now() - 3 * HOUR);
		const future = await write('PATCH', `/api/assets/v1/${sandbox.store.assets.all()[2].id}`, {
			lastSyncDtm: '2205-01-01T00:00:00Z',
		});
		// entered today, signed last month; the notice deadline is in 10 days
		const backdated = await putContract('E2E-C1', 'E2E Vendor', {
			agreementDate: isoDate(Date.now() - 31 * DAY),
			renewalDate: isoDate(Date.now() + 40 * DAY),
			terminationNoticeDays: 30,
		});

		const first = await emittedAfterPolls(7);
		expect(emittedBy(first)).toEqual(
			sortedIds({
				'Assets synced': [late, future],
				'Assets changed': [late, future],
				'Agreements dated': [backdated],
				'Renewal notices': [backdated],
				'E2E contracts changed': [backdated],
			}),
		);
		const renewal = first.find((execution) => 'Renewal notices' in execution.outputs)!;
		expect(renewal.outputs['Renewal notices']).toEqual([
			expect.objectContaining({
				...backdated,
				event: 'renewalNoticeDue',
				noticeDeadline: isoDate(Date.now() + 10 * DAY),
				daysUntilNoticeDeadline: 10,
			}),
		]);

		const after = await syncAsset(3);
		const redated = await putContract('E2E-C1', 'E2E Vendor', {
			...backdated,
			agreementDate: isoDate(Date.now() - 30 * DAY),
		});
		expect(emittedBy(await emittedAfterPolls(4))).toEqual(
			sortedIds({
				'Assets synced': [after],
				'Assets changed': [after],
				'Agreements dated': [redated],
				'E2E contracts changed': [redated],
			}),
		);
	});

	test('entering the filter is no sync: a trigger on Deployed assets emits only the real sync beside it, once', async () => {
		const assets = sandbox.store.assets.all();
		const synced = (record: Record<string, unknown>) => typeof record.lastSyncDtm === 'string';
		const entering = assets.findIndex((r) => r.status === 'ReadyToDeploy' && synced(r));
		const deployed = assets.findIndex((r, i) => i > 10 && r.status === 'Deployed' && synced(r));
		const before = home.readExecutions({ workflowId: deployedWorkflowId }).at(-1)?.id;

		// Deployed now, its Last Synced At as it was
		const moved = await write('PATCH', `/api/assets/v1/${String(assets[entering].id)}`, {
			status: 'Deployed',
		});
		const sync = await syncAsset(deployed);

		expect(emittedBy(await emittedAfterPolls(3))).toEqual(
			sortedIds({ 'Assets synced': [sync], 'Assets changed': [moved, sync] }),
		);
		const filtered = await waitFor(
			'the Deployed trigger to finish',
			() => {
				const runs = home.readExecutions({ workflowId: deployedWorkflowId, afterId: before });
				return runs.every(isFinished) ? runs : undefined;
			},
			30_000,
		);
		expect(filtered.map((run) => [run.status, run.outputs])).toEqual([
			['success', { 'Deployed synced': [{ ...sync, event: 'assetSynced' }] }],
		]);
	});

	test('a resume link the service lets expire: the walk is read again from its first page, every change once', async () => {
		// cursors outlive a walk's pages read back to back, not the 5 s to the next poll
		sandbox.setCursorTtl(2);
		// 500s are not retried: a walk that meets one after a page stores its next link
		sandbox.setFaults('500:0.6');
		sandbox.resetStats();
		// the assets after the fleet's: five pages of the triggers' 1,000, so a walk that meets a 500
		// on one of them is almost sure to be cut after a page
		const backlog = sandbox.store.assets.all().slice(100 + BULK);
		const started = Date.now();
		for (const [index, record] of backlog.entries()) {
			sandbox.store.assets.put({
				...record,
				lastSyncDtm: iso(started - HOUR + index),
				lastModifiedDtm: iso(Date.now()),
			});
		}
		const ids = backlog.map((record) => String(record.id)).sort();

		const refused = await waitFor(
			'a stored link to be refused',
			() =>
				sandbox
					.journal()
					.find(
						(call) => call.path === '/api/assets/v1' && call.query.after && call.status === 400,
					),
			90_000,
		);
		const clearedAt = Date.now();
		sandbox.setFaults('');
		expect(refused.query.since).toBeDefined();

		const executions = await emittedAfterPolls(2 * backlog.length, 180_000);
		const failed = failedWhileFaulty(executions, clearedAt);
		expect(emittedBy(executions.filter((execution) => !failed.includes(execution)))).toEqual({
			'Assets synced': ids,
			'Assets changed': ids,
		});
	}, 300_000);

	test(`a fleet sync of ${BULK.toLocaleString('en')} assets within a minute: each asset emitted once`, async () => {
		const fleet = sandbox.store.assets.all().slice(100, 100 + BULK);
		const started = Date.now();
		for (const [index, record] of fleet.entries()) {
			// the platform sends each device's own check-in time, up to an hour old; the service
			// stamps the write with its clock
			sandbox.store.assets.put({
				...record,
				lastSyncDtm: iso(started - HOUR + Math.floor((index * HOUR) / BULK)),
				lastModifiedDtm: iso(Date.now()),
			});
		}
		const ids = fleet.map((record) => record.id).sort();

		const executions = await emittedAfterPolls(2 * BULK, 180_000);
		expect(emittedBy(executions)).toEqual({ 'Assets synced': ids, 'Assets changed': ids });
	}, 300_000);

	test('polls that emit nothing move the state in memory only (durable cursors: in the database); after a restart, what changed while n8n was down is emitted once and nothing earlier again', async () => {
		const synced = await syncAsset(4);
		expect(emittedBy(await emittedAfterPolls(2))).toEqual(
			sortedIds({ 'Assets synced': [synced], 'Assets changed': [synced] }),
		);
		const savedAtEmit = home.staticData(workflowId);
		sandbox.resetStats();

		// polls with nothing new: they read (from the same instant once the state is idle: an idle
		// poll keeps it byte for byte), none emits, none saves its state
		await delay(3 * POLL_EVERY_MS);
		const reads = sandbox
			.journal()
			.filter((call) => call.path === '/api/assets/v1' && call.query.since);
		expect(reads.length).toBeGreaterThan(1);
		expect(newExecutions()).toEqual([]);
		if (home.durableCursors) {
			// durable cursors: n8n commits each poll's state in its own table; an idle poll keeps the
			// state as it was, so whether it moved since the emit depends on the polls between (what
			// matters, that a restart resumes from it, is checked below)
			expect(Object.keys(home.pollerCursors(workflowId))).not.toEqual([]);
		} else {
			expect(home.staticData(workflowId)).toEqual(savedAtEmit);
		}

		await server!.stop();
		server = undefined;
		const whileDown = await syncAsset(5);
		const renamed = await write('PATCH', `/api/assets/v1/${String(synced.id)}`, {
			deviceName: 'Renamed while n8n was down',
		});
		// a new renewal date is a new reminder; the agreement date is unchanged
		const moved = await putContract('E2E-C1', 'E2E Vendor', {
			agreementDate: isoDate(Date.now() - 30 * DAY),
			renewalDate: isoDate(Date.now() + 45 * DAY),
			terminationNoticeDays: 30,
		});
		const signed = await putContract('E2E-C3', 'E2E Newer Vendor');
		server = await home.start();

		expect(emittedBy(await emittedAfterPolls(7))).toEqual(
			sortedIds({
				'Assets synced': [whileDown],
				'Assets changed': [whileDown, renamed],
				'Agreements dated': [signed],
				'Renewal notices': [moved],
				'E2E contracts changed': [moved, signed],
			}),
		);
	});

	test.each([
		['fails (500, not retried)', '500:1', ['500'], 6],
		[
			"is behind a gateway that answers 200 with what is not the service's (a maintenance page, JSON cut short, another shape)",
			'maintenance:0.34,shape:0.33,truncated:0.33',
			['maintenance', 'shape', 'truncated'],
			7,
		],
	] as const)(
		'while the service %s, polls emit nothing and keep their place; after it recovers each change is emitted once',
		async (_, faults, kinds, index) => {
			const synced = await syncAsset(index);
			const signed = await putContract(`E2E-C4-${index}`, 'E2E Fault Vendor');
			sandbox.setFaults(faults);
			sandbox.resetStats();

			await delay(FAULT_WINDOW_MS);
			// every call in the window met a fault
			const calls = sandbox.journal().filter((call) => call.path.startsWith('/api/'));
			expect(new Set(calls.map((call) => call.fault))).toEqual(new Set(kinds));
			// so a poll that emitted in it had read the service before the faults began (one in
			// flight as they were set, on a busy machine): what it emitted counts once with the rest
			const duringFault = await waitFor('the executions to finish', finishedExecutions, 30_000);
			const readBefore = duringFault.filter((execution) => execution.status === 'success');
			seen = duringFault.at(-1)?.id ?? seen;

			const clearedAt = Date.now();
			sandbox.setFaults('');
			const executions = await emittedAfterPolls(4 - recordsIn(readBefore));

			// a failed poll can be stored after the window's snapshot (queue mode writes it from a
			// worker, and a poll in flight when the faults stopped ends after it)
			const failed = failedWhileFaulty(executions, clearedAt);
			const emitted = executions.filter((execution) => !failed.includes(execution));
			expect(emittedBy([...readBefore, ...emitted])).toEqual(
				sortedIds({
					'Assets changed': [synced],
					'Assets synced': [synced],
					'Agreements dated': [signed],
					'E2E contracts changed': [signed],
				}),
			);
		},
	);

	test('"Fetch Test Event" shows the asset with the most recent Last Synced At', async () => {
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
		// the 8 GB asset syncs last: "8" would pass a text comparison with "20"; both sync in
		// the future, so they are the latest of all
		const large = await syncAsset(index(32), Date.now() + 300 * 365 * DAY);
		await syncAsset(index(8), Date.now() + 301 * 365 * DAY);
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
