import type { IDataObject } from 'n8n-workflow';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import { RecordMemory, type PackedMemory } from '../../nodes/StockroomTrigger/memory';
import { SETTLE_MS } from '../../nodes/StockroomTrigger/pollTurns';
import { addDays } from '../../nodes/StockroomTrigger/renewals';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { runPoll, sandboxCredential, type CredentialStore } from '../helpers/n8n';
import { failureOf } from '../helpers/outcomes';
import { inTimeZone } from '../helpers/timeZone';

const trigger = new StockroomTrigger();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

describe('Stockroom Trigger against the sandbox', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	let staticData: IDataObject;
	let workflowId: string;
	/** The service's clock; this machine's clock is left alone. */
	let now: number;
	const assetSynced = { resource: 'assets', event: 'assetSynced' };
	const poll = (
		parameters: IDataObject = assetSynced,
		extra: { mode?: 'manual'; budgetMs?: number; workflowId?: string } = {},
	) =>
		runPoll(trigger, {
			parameters: parameters as never,
			credential,
			staticData,
			workflowId,
			...extra,
		});
	const emitted = (result: Awaited<ReturnType<typeof poll>>) =>
		result ? result[0].map((item) => item.json) : [];
	const emittedIds = (result: Awaited<ReturnType<typeof poll>>) =>
		emitted(result).map((record) => record.id);
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));
	const changes = () => staticData.changes as IDataObject;
	const changesOf = (name: string) => staticData[name] as IDataObject;

	/** A write by another client of the service, through its API; the service stamps it. */
	async function write(method: 'PUT' | 'PATCH', path: string, body: IDataObject) {
		now += 1000;
		const response = await fetch(`${sandbox.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${sandbox.token()}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		expect(response.status).toBe(200);
		return (await response.json()) as IDataObject;
	}
	const asset = (index: number) => sandbox.store.assets.all()[index];
	const contract = (index: number) => sandbox.store.contracts.all()[index];
	const patchAsset = (index: number, body: IDataObject) =>
		write('PATCH', `/api/assets/v1/${asset(index).id}`, body);
	/** A backlog: every asset syncs, 10 ms apart, with a value a day old; returns their ids in order. */
	function syncEveryAssetLate(): string[] {
		const ids = sandbox.store.assets.all().map((record) => String(record.id));
		for (const id of ids) {
			now += 10;
			sandbox.store.assets.put({
				...sandbox.store.assets.get(id),
				lastSyncDtm: iso(now - DAY),
				lastModifiedDtm: iso(now),
			});
		}
		return ids;
	}
	const putContract = (index: number, changes: IDataObject) =>
		write('PUT', '/api/contracts/v1', { ...(contract(index) as IDataObject), ...changes });

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		// each test is a workflow of its own: its trigger starts afresh
		workflowId = expect.getState().currentTestName ?? 'workflow';
		sandbox.reset();
		sandbox.resetStats();
		staticData = {};
		now = Date.now();
		sandbox.setClock(() => new Date(now));
	});

	test('first activation emits nothing that exists; an idle poll is one request on the service clock', async () => {
		await patchAsset(0, { lastSyncDtm: iso(now) }); // recent, but from before activation
		now += 5000;
		expect(await poll()).toBeNull();
		expect(changes()).toMatchObject({
			key: 'assets:assetSynced',
			since: iso(Math.floor(now / 1000) * 1000 - 999),
			memory: { unit: 'ms', count: expect.any(Number) },
		});
		const since = changes().since;
		sandbox.resetStats();
		now += MINUTE;
		expect(await poll()).toBeNull();
		expect(apiCalls()).toEqual([
			expect.objectContaining({ path: '/api/assets/v1', query: { since, limit: '1000' } }),
		]);
	});

	test.each([
		['Asset Synced', assetSynced],
		['Asset Record Changed', { resource: 'assets', event: 'recordChanged' }],
		['Contract Agreement Dated', { resource: 'contracts', event: 'contractAgreementDated' }],
		['Renewal Notice Due', { resource: 'contracts', event: 'renewalNoticeDue', withinDays: 3650 }],
	])(
		'%s: an idle poll leaves the static data byte for byte as it was (n8n has nothing to commit)',
		async (_, parameters) => {
			await poll(parameters);
			now += MINUTE;
			await poll(parameters);
			const before = JSON.stringify(staticData);
			for (let polls = 0; polls < 3; polls++) {
				now += MINUTE;
				expect(await poll(parameters)).toBeNull();
				expect(JSON.stringify(staticData)).toBe(before);
			}
			// an edit that is no change for a value event is read, and still changes nothing
			if (parameters.event === 'assetSynced') {
				await patchAsset(3, { notes: 'not a sync' });
				now += MINUTE;
				expect(await poll(parameters)).toBeNull();
				expect(JSON.stringify(staticData)).toBe(before);
			}
		},
	);

	test('every new Last Synced At is emitted once, whatever its value: recent, hours late, far in the future', async () => {
		await poll();
		const synced = await patchAsset(1, { lastSyncDtm: iso(now) });
		const late = await patchAsset(2, { lastSyncDtm: iso(now - 3 * HOUR) });
		const future = await patchAsset(3, { lastSyncDtm: '2205-01-01T00:00:00.000Z' });
		expect(emitted(await poll())).toEqual([
			{ ...synced, event: 'assetSynced' },
			{ ...late, event: 'assetSynced' },
			{ ...future, event: 'assetSynced' },
		]);
		// after a value in 2205, changes keep flowing
		const next = await patchAsset(4, { lastSyncDtm: iso(now) });
		const again = await patchAsset(1, { lastSyncDtm: iso(now) });
		expect(emittedIds(await poll())).toEqual([again.id, next.id].sort());
		// an edit that is not a sync, and a sync that writes the same time again, are not changes
		await patchAsset(1, { notes: 'a note' });
		await patchAsset(4, { lastSyncDtm: next.lastSyncDtm });
		expect(await poll()).toBeNull();
		expect(await poll()).toBeNull();
	});

	test('Contract Agreement Dated fires for a contract entered today with last month’s date, and again when the date changes', async () => {
		const parameters = { resource: 'contracts', event: 'contractAgreementDated' };
		await poll(parameters);
		const today = iso(now).slice(0, 10);
		const backdated = await write('PUT', '/api/contracts/v1', {
			externalId: 'SIGNED-LAST-MONTH',
			ref: 'PO-1',
			type: 'OrderForm',
			vendorName: 'Backdated Vendor',
			agreementDate: addDays(today, -31),
		});
		expect(emitted(await poll(parameters))).toEqual([
			{ ...backdated, event: 'contractAgreementDated' },
		]);
		await write('PUT', '/api/contracts/v1', { ...backdated, notes: 'countersigned' });
		expect(await poll(parameters)).toBeNull();
		const corrected = await write('PUT', '/api/contracts/v1', {
			...backdated,
			agreementDate: addDays(today, -30),
		});
		expect(emitted(await poll(parameters))).toEqual([
			{ ...corrected, event: 'contractAgreementDated' },
		]);
		expect(await poll(parameters)).toBeNull();
		expect(apiCalls().at(-1)?.query).toEqual({
			since: expect.stringMatching(/Z$/),
			limit: '1000',
		});
	});

	describe('values compared by what they mean, whatever their spelling (the service, a proxy or another version writes them otherwise)', () => {
		afterEach(() => sandbox.setFaults(''));

		test('Contract Agreement Dated: a day written with an offset, without a zone or as a plain date is the same day; edits of another field emit nothing, a new day once', async () => {
			const parameters = { resource: 'contracts', event: 'contractAgreementDated' };
			await poll(parameters);
			const signed = await write('PUT', '/api/contracts/v1', {
				externalId: 'SPELLED',
				ref: 'PO-S',
				type: 'OrderForm',
				vendorName: 'Spelling Vendor',
				agreementDate: '2024-03-01',
			});
			sandbox.setFaults('dates:1');
			expect(emittedIds(await poll(parameters))).toEqual([signed.id]);
			// this machine east of UTC: a day without a zone is still the day written
			await inTimeZone('Europe/Berlin', async () => {
				for (let edit = 0; edit < 10; edit++) {
					await write('PUT', '/api/contracts/v1', { ...signed, notes: `edit ${edit}` });
					expect(await poll(parameters)).toBeNull();
				}
			});
			const redated = await write('PUT', '/api/contracts/v1', {
				...signed,
				agreementDate: '2024-03-02',
			});
			const [emittedRecord] = emitted(await poll(parameters));
			expect(emittedRecord).toMatchObject({ id: redated.id, event: 'contractAgreementDated' });
			expect(String(emittedRecord.agreementDate)).toMatch(/^2024-03-02/);
			expect(await poll(parameters)).toBeNull();
			expect(apiCalls().filter((call) => call.fault === 'dates').length).toBeGreaterThan(10);
		});

		test('Asset Synced: a time written with an offset, without a zone or with microseconds is the same instant; edits of another field emit nothing', async () => {
			await poll();
			const synced = await patchAsset(4, { lastSyncDtm: iso(now - HOUR + 123) });
			sandbox.setFaults('dates:1');
			expect(emittedIds(await poll())).toEqual([synced.id]);
			await inTimeZone('America/New_York', async () => {
				for (let edit = 0; edit < 10; edit++) {
					await patchAsset(4, { notes: `edit ${edit}` });
					expect(await poll()).toBeNull();
				}
			});
			const again = await patchAsset(4, { lastSyncDtm: iso(now) });
			expect(emittedIds(await poll())).toEqual([again.id]);
		});
	});

	test.each([
		['ten minutes behind', -10 * MINUTE],
		['a day ahead', DAY],
	])(
		'Record Changed emits every modification once when the service clock is %s of this machine',
		async (_, skew) => {
			now = Date.now() + skew;
			const parameters = { resource: 'contracts', event: 'recordChanged' };
			await poll(parameters);
			expect(apiCalls()).toHaveLength(1);
			const first = await putContract(0, { notes: 'changed' });
			const result = await poll(parameters);
			expect(result![0].map((item) => [item.json.id, item.json.notes, item.json.event])).toEqual([
				[first.id, 'changed', 'recordChanged'],
			]);
			expect(apiCalls().at(-1)?.query).toMatchObject({ since: expect.stringMatching(/Z$/) });
			expect(apiCalls().at(-1)?.query.filter).toBeUndefined();
			expect(await poll(parameters)).toBeNull();
			const second = await putContract(0, { notes: 'changed again' });
			now += 30_000; // within the lookback: read again, not emitted again
			expect(emittedIds(await poll(parameters))).toEqual([second.id]);
			expect(await poll(parameters)).toBeNull();
		},
	);

	test('the filter decides which syncs are emitted: entering or leaving it, editing it, deleting and re-creating are not syncs', async () => {
		const deployed = {
			...assetSynced,
			filterMode: 'expression',
			filterExpression: 'status eq "Deployed"',
		};
		const index = (status: string, skip = 0) =>
			sandbox.store.assets.all().findIndex((record, at) => at >= skip && record.status === status);
		const outside = index('ReadyToDeploy');
		const inside = index('Deployed');
		const leaving = index('Deployed', inside + 1);
		await poll(deployed);
		now += MINUTE;
		sandbox.resetStats();
		await patchAsset(outside, { status: 'Deployed' }); // enters the filter with its old sync
		const synced = await patchAsset(inside, { lastSyncDtm: iso(now) });
		await patchAsset(leaving, { status: 'OutForRepair' });
		await patchAsset(leaving, { lastSyncDtm: iso(now) }); // a sync outside the filter
		expect(emittedIds(await poll(deployed))).toEqual([synced.id]);
		// every modified record is read; the service says which of the page's ids match the filter
		const reads = apiCalls().slice(-2);
		const since = reads[0].query.since;
		const ids = [asset(outside).id, asset(inside).id, asset(leaving).id].sort();
		expect(reads.map((call) => call.query)).toEqual([
			{ since, limit: '1000' },
			{
				filter: `status eq "Deployed" and id ge "${ids[0]}" and id le "${ids[2]}"`,
				since,
				limit: '1000',
			},
		]);
		// back inside with the value it synced outside: not a sync either
		await patchAsset(leaving, { status: 'Deployed' });
		now += MINUTE;
		expect(await poll(deployed)).toBeNull();
		// the filter widened: the records it takes in now are not syncs
		const widened = {
			...deployed,
			filterExpression: 'status eq "Deployed" or status eq "ReadyToDeploy"',
		};
		await patchAsset(index('ReadyToDeploy'), { notes: 'seen under the wider filter' });
		now += MINUTE;
		expect(await poll(widened)).toBeNull();
		// deleted and restored as it was (same id, same sync): not a sync; a real sync beside it is
		const restored = { ...asset(inside) };
		sandbox.store.assets.delete(restored.id);
		now += MINUTE;
		expect(await poll(widened)).toBeNull();
		sandbox.store.assets.put({ ...restored, lastModifiedDtm: iso(now) });
		const beside = await patchAsset(index('Deployed'), { lastSyncDtm: iso(now + 5) });
		now += MINUTE;
		expect(emittedIds(await poll(widened))).toEqual([beside.id]);
	});

	test.each([
		[{ field: 'customFieldValues.a pr or id', operator: 'eq', value: 'x' }],
		[{ field: 'deviceName', operator: 'eq "x" or id pr or id eq', value: 'x' }],
	])(
		'a field or operator from an expression cannot escape the window: the poll fails naming the row, before any list request (%j)',
		async (row) => {
			await expect(
				poll({ ...assetSynced, filterMode: 'manual', conditions: { condition: [row] } }),
			).rejects.toThrow(/^Filter condition 1 \(/);
			// at most the custom field definitions were read; no list was asked for
			expect(apiCalls().filter((call) => call.path === '/api/assets/v1')).toEqual([]);
			expect(staticData).toEqual({});
		},
	);

	test('a custom number field in the builder is sent as a number, as in Get Many', async () => {
		const parameters = {
			resource: 'assets',
			event: 'recordChanged',
			options: { firstRun: 'includeExisting' },
			filterMode: 'manual',
			conditions: {
				condition: [{ field: 'customFieldValues.memoryGb', operator: 'ge', value: '16' }],
			},
		};
		await poll(parameters);
		expect(apiCalls().map((call) => call.path)).toEqual([
			'/api/assets/v1/customfields',
			'/api/assets/v1',
		]);
		expect(apiCalls()[1].query.filter).toBe('customFieldValues.memoryGb ge 16');
	});

	test('a state saved before the memory held every record: one whole walk learns the others, losing and repeating nothing', async () => {
		const deployed = {
			...assetSynced,
			filterMode: 'expression',
			filterExpression: 'status eq "Deployed"',
		};
		await poll(deployed);
		// as the earlier version stored it: only the records matching the filter, no scope
		const { scope, memory, ...rest } = changes() as IDataObject & { memory: PackedMemory };
		expect(scope).toBe('all');
		const full = new RecordMemory(memory, 'ms');
		const remembered = new RecordMemory(undefined, 'ms');
		for (const record of sandbox.store.assets.all()) {
			const value = full.get(record.id);
			if (record.status === 'Deployed' && value !== undefined) remembered.set(record.id, value);
		}
		staticData.changes = { ...rest, memory: remembered.pack() };
		const outside = sandbox.store.assets
			.all()
			.findIndex((record) => record.status === 'ReadyToDeploy');
		const inside = sandbox.store.assets.all().findIndex((record) => record.status === 'Deployed');
		now += MINUTE;
		const synced = await patchAsset(inside, { lastSyncDtm: iso(now) });
		const syncedOutside = await patchAsset(outside, { lastSyncDtm: iso(now), status: 'Deployed' });
		now += MINUTE;
		// the walk that learns reads every record once (no since), and emits both syncs
		expect(emittedIds(await poll(deployed))).toEqual([synced.id, syncedOutside.id].sort());
		expect(
			apiCalls().filter((call) => call.query.since === undefined && !call.query.filter),
		).not.toEqual([]);
		expect(changes().scope).toBe('all');
		// from then on, a record entering the filter with its old value is not a sync
		await patchAsset(
			sandbox.store.assets.all().findIndex((record) => record.status === 'ReadyToDeploy'),
			{
				status: 'Deployed',
			},
		);
		now += MINUTE;
		expect(await poll(deployed)).toBeNull();
	});

	test('a deleted record is forgotten by the next sweep (a few list requests per poll); what is created, synced or cleared meanwhile is kept; nothing is emitted for it', async () => {
		// 300 assets, 30 a page: the sweep reads 4 pages a poll and ends in its third poll
		const parameters = { ...assetSynced, options: { pageSize: 30 } };
		await poll(parameters);
		now += MINUTE;
		await poll(parameters);
		// a state saved before sweeps existed has none: its first sweep counts from activation
		expect(changes().sweep).toBeUndefined();
		staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		const known = (id: unknown) =>
			new RecordMemory(changes().memory as PackedMemory, 'ms').get(String(id));
		const count = () => (changes().memory as PackedMemory).count;
		const countBefore = count();
		const gone = [5, 150, 299].map((index) => String(asset(index).id));
		for (const id of gone) {
			const response = await fetch(`${sandbox.url}/api/assets/v1/${id}`, {
				method: 'DELETE',
				headers: { authorization: `Bearer ${sandbox.token()}` },
			});
			expect(response.status).toBe(204);
		}
		expect(gone.map(known)).not.toContain(undefined);
		// before half a day, idle polls sweep nothing and change nothing
		now += 6 * HOUR;
		const idle = JSON.stringify(staticData);
		expect(await poll(parameters)).toBeNull();
		expect(JSON.stringify(staticData)).toBe(idle);

		const sweepCalls = () => apiCalls().filter((call) => call.query.since === undefined);
		const sweepPoll = async () => {
			now += MINUTE;
			sandbox.resetStats();
			const emittedNow = emittedIds(await poll(parameters)).sort();
			return { emittedNow, calls: sweepCalls().length };
		};
		now += 7 * HOUR;
		expect(await sweepPoll()).toEqual({ emittedNow: [], calls: 4 });
		expect(changes().sweep).toMatchObject({ after: asset(119).id, tally: expect.any(String) });
		// during the sweep: created (ahead of it), synced and first synced (behind it), and cleared
		// ahead of it, to be synced again once it has passed
		const created = await write('PUT', '/api/assets/v1', {
			...(asset(10) as IDataObject),
			id: undefined,
			externalId: 'SWEEP-NEW',
			serialNumber: 'SWEEP-NEW',
			lastSyncDtm: iso(now),
		});
		const synced = await patchAsset(20, { lastSyncDtm: iso(now) });
		const never = sandbox.store.assets
			.all()
			.findIndex((record, index) => index < 100 && record.lastSyncDtm === undefined);
		const firstSync = await patchAsset(never, { lastSyncDtm: iso(now) });
		const cleared = await patchAsset(200, { lastSyncDtm: null });
		expect(await sweepPoll()).toEqual({
			emittedNow: [created.id, synced.id, firstSync.id].map(String).sort(),
			calls: 4,
		});
		const resynced = await patchAsset(200, { lastSyncDtm: iso(now) });
		// the last pages, and the empty answer for what follows the last that ends the sweep
		expect(await sweepPoll()).toEqual({ emittedNow: [String(cleared.id)], calls: 3 });

		expect(changes().sweep).toEqual({ began: expect.any(String) });
		expect(gone.map(known)).toEqual([undefined, undefined, undefined]);
		for (const record of [created, synced, firstSync, resynced])
			expect(known(record.id)).toBe(Date.parse(String(record.lastSyncDtm)));
		expect(count()).toBe(countBefore - gone.length + 2);
		// then idle again until the next sweep is due
		now += MINUTE;
		await poll(parameters);
		const after = JSON.stringify(staticData);
		now += HOUR;
		expect(await poll(parameters)).toBeNull();
		expect(JSON.stringify(staticData)).toBe(after);
	});

	test('a failed poll leaves the state as it was, and the next poll emits the change', async () => {
		await poll();
		const { id } = await patchAsset(6, { lastSyncDtm: iso(now) });
		const before = structuredClone(staticData);
		sandbox.setFaults('500:1');
		await expect(poll()).rejects.toThrow('HTTP 500');
		expect(staticData).toEqual(before);
		sandbox.setFaults('');
		expect(emittedIds(await poll())).toEqual([id]);
	});

	describe.each(['maintenance', 'shape', 'truncated'] as const)(
		'while the service’s address answers 200 that is not the service (%s)',
		(kind) => {
			/** A change the service records meanwhile (straight into its store: its API is down). */
			const sync = (index: number) => {
				const record = { ...asset(index), lastSyncDtm: iso(now), lastModifiedDtm: iso(now) };
				sandbox.store.assets.put(record);
				return record.id;
			};
			const edit = (index: number) => {
				const record = { ...asset(index), notes: `changed ${now}`, lastModifiedDtm: iso(now) };
				sandbox.store.assets.put(record);
				return record.id;
			};
			const date = (index: number) => {
				const record = {
					...contract(index),
					agreementDate: `${iso(now - index * DAY).slice(0, 10)}T00:00:00Z`,
					lastModifiedDtm: iso(now),
				};
				sandbox.store.contracts.put(record);
				return record.id;
			};
			test.each([
				['Asset Synced', assetSynced, sync],
				['Asset Record Changed', { resource: 'assets', event: 'recordChanged' }, edit],
				[
					'Contract Agreement Dated',
					{ resource: 'contracts', event: 'contractAgreementDated' },
					date,
				],
			] as const)(
				'%s: every poll fails saying so and stores nothing; after it, each change made meanwhile is emitted once',
				async (_, parameters, change) => {
					await poll(parameters);
					const before = structuredClone(staticData);
					sandbox.setFaults(`${kind}:1`);
					const changed: unknown[] = [];
					for (let round = 0; round < 3; round++) {
						now += MINUTE;
						changed.push(change(10 + round));
						now += MINUTE;
						await expect(poll({ ...parameters, options: { maxAttempts: 2 } })).rejects.toThrow(
							/: the answer is not the service's \(HTTP 200, /,
						);
						expect(staticData).toEqual(before);
					}
					sandbox.setFaults('');
					now += MINUTE;
					expect(emittedIds(await poll(parameters)).sort()).toEqual([...changed].sort());
					now += MINUTE;
					expect(await poll(parameters)).toBeNull();
				},
			);

			test('a walk that meets such an answer on a later page stops there and resumes there', async () => {
				const parameters = { ...assetSynced, options: { pageSize: 100, maxAttempts: 1 } };
				await poll(parameters);
				for (const record of sandbox.store.assets.all()) {
					now += 10;
					sandbox.store.assets.put({ ...record, lastSyncDtm: iso(now), lastModifiedDtm: iso(now) });
				}
				sandbox.failNext(1, kind, 1); // the second page
				const first = emittedIds(await poll(parameters));
				expect(first).toHaveLength(100);
				expect(changes().walk).toMatchObject({ next: expect.stringContaining('after=') });
				const rest = emittedIds(await poll(parameters));
				expect([...first, ...rest]).toEqual(sandbox.store.assets.all().map((record) => record.id));
			});
		},
	);

	test('a backlog longer than the budget: each change once, and rewrites of pages already read are caught by the next walk', async () => {
		const parameters = { ...assetSynced, options: { pageSize: 100 } };
		await poll(parameters);
		const all = syncEveryAssetLate();
		const seen: unknown[] = [];
		seen.push(...emittedIds(await poll(parameters, { budgetMs: 0 })));
		expect(seen).toEqual(all.slice(0, 100));
		expect(changes().walk).toMatchObject({ next: expect.stringContaining('after=') });
		// while the walk goes on, an asset on the page already read syncs again
		now += MINUTE;
		const rewritten = await patchAsset(0, { lastSyncDtm: iso(now) });
		for (let polls = 0; polls < 2; polls++) {
			now += MINUTE;
			seen.push(...emittedIds(await poll(parameters, { budgetMs: 0 })));
		}
		expect(changes().walk).toBeUndefined();
		expect(seen).toEqual(all);
		now += MINUTE;
		expect(emitted(await poll(parameters))).toEqual([{ ...rewritten, event: 'assetSynced' }]);
		expect(await poll(parameters)).toBeNull();
	});

	test.each([
		['an expired cursor', () => sandbox.setCursorTtl(300)],
		[
			'a base URL that moved (the link names a path the service no longer has)',
			() => {
				const walk = changes().walk as IDataObject;
				walk.next = String(walk.next).replace('/api/', '/old-gateway/api/');
			},
		],
	])(
		'a resume link the service refuses (%s): the next poll reads that walk again from its first page; every change once',
		async (_, refuse) => {
			const parameters = { ...assetSynced, options: { pageSize: 100 } };
			await poll(parameters);
			const all = syncEveryAssetLate();
			const seen = emittedIds(await poll(parameters, { budgetMs: 0 }));
			const walkStart = (changes().walk as IDataObject).startedAt;
			refuse();
			now += 10 * MINUTE;
			try {
				// refused: nothing emitted, the walk keeps its start and drops the link
				expect(await poll(parameters, { budgetMs: 0 })).toBeNull();
				expect(changes().walk).toEqual({ startedAt: walkStart, query: expect.any(String) });
				const synced = await patchAsset(150, { lastSyncDtm: iso(now) });
				for (let polls = 0; polls < 3; polls++) {
					now += MINUTE;
					seen.push(...emittedIds(await poll(parameters, { budgetMs: 0 })));
				}
				expect(changes().walk).toBeUndefined();
				// the first page read again repeats nothing; the sync made meanwhile is there once
				expect([...seen].sort()).toEqual([...all].sort());
				expect(seen.filter((id) => id === synced.id)).toHaveLength(1);
				now += MINUTE;
				expect(await poll(parameters)).toBeNull();
			} finally {
				sandbox.setCursorTtl(undefined);
			}
		},
	);

	test('a request that fails after some pages ends the poll with what was read; the walk resumes there', async () => {
		const parameters = { ...assetSynced, options: { pageSize: 100, maxAttempts: 1 } };
		await poll(parameters);
		for (const record of sandbox.store.assets.all()) {
			now += 10;
			sandbox.store.assets.put({ ...record, lastSyncDtm: iso(now), lastModifiedDtm: iso(now) });
		}
		sandbox.failNext(1, '503', 2);
		const first = emittedIds(await poll(parameters));
		expect(first).toHaveLength(200);
		expect(changes().walk).toMatchObject({ next: expect.stringContaining('after=') });
		const rest = emittedIds(await poll(parameters));
		expect([...first, ...rest]).toEqual(sandbox.store.assets.all().map((record) => record.id));
	});

	test('Include existing records emits the most recent ones, up to the cap', async () => {
		const base = now - HOUR;
		const ids = [0, 1, 2].map((index) => {
			sandbox.store.assets.put({ ...asset(index), lastSyncDtm: iso(base + index * MINUTE) });
			return asset(index).id;
		});
		const parameters = {
			...assetSynced,
			filterMode: 'expression',
			filterExpression: `lastSyncDtm ge "${iso(base)}"`,
			options: { firstRun: 'includeExisting', maxExisting: 2 },
		};
		expect(emittedIds(await poll(parameters))).toEqual([ids[2], ids[1]]);
		expect(await poll(parameters)).toBeNull();
	});

	test('Fetch Test Event shows the most recent record and moves nothing', async () => {
		sandbox.store.assets.put({ ...asset(7), lastSyncDtm: iso(Date.now() + 5 * MINUTE) });
		const result = await poll(assetSynced, { mode: 'manual' });
		expect(emittedIds(result)).toEqual([asset(7).id]);
		expect(staticData).toEqual({});
		await expect(
			poll(
				{
					...assetSynced,
					filterMode: 'expression',
					filterExpression: 'deviceName eq "no such device"',
				},
				{ mode: 'manual' },
			),
		).rejects.toThrow('Nothing to show yet: no asset matches the event and filter');
	});

	test('a poll that outlives its budget (the service asks it to wait) holds the next poll off until it ends: the sync once', async () => {
		await poll();
		const { id } = await patchAsset(8, { lastSyncDtm: iso(now) });
		// two 429s, each asking for a second: the first poll runs about two seconds on a one-second budget
		sandbox.failNext(2, '429');
		const first = poll(assetSynced, { budgetMs: 1000 });
		await new Promise((resolve) => setTimeout(resolve, 1400));
		expect(await poll(assetSynced, { budgetMs: 1000 })).toBeNull();
		expect(emittedIds(await first)).toEqual([id]);
		expect(await poll()).toBeNull();
	});

	test('retry waits end with the turn: a service answering 503 the whole time fails the poll within it, naming the status', async () => {
		await poll();
		sandbox.failNext(1000, '503');
		const started = Date.now();
		// a one-second budget is a five-second turn at least; six attempts would wait up to 15 s
		const error = await failureOf(poll(assetSynced, { budgetMs: 1000 }));
		expect(Date.now() - started).toBeLessThan(5500);
		expect(error.message).toMatch(/503/);
		// n8n 2.41's scheduler reads why: the service is down for now, a wait can help
		expect(error).toMatchObject({ failure: { cause: 'temporarily-unavailable' } });
		sandbox.setFaults('');
	});

	test('a poll the service rate-limits fails saying so, with the wait the service asked for (n8n backs off that long)', async () => {
		await poll();
		sandbox.setFaults('429:1');
		const parameters = { ...assetSynced, options: { maxAttempts: 1 } };
		const error = await failureOf(poll(parameters));
		sandbox.setFaults('');
		expect(error.message).toMatch(/rate limiting .*\(HTTP 429\)/);
		expect(error).toMatchObject({ failure: { cause: 'rate-limited', retryAfterMs: 1000 } });
	});

	test('a poll that starts while the previous one still runs emits nothing and changes nothing', async () => {
		await poll();
		const { id } = await patchAsset(8, { lastSyncDtm: iso(now) });
		sandbox.setFaults('slow:1');
		const results = await Promise.all([poll(), poll()]);
		sandbox.setFaults('');
		// whichever poll got going first does the work; the other finds it running and stops
		expect(results.map(emittedIds).sort((a, b) => b.length - a.length)).toEqual([[id], []]);
		expect(results.filter((result) => result === null)).toHaveLength(1);
		expect(await poll()).toBeNull();
	});

	test('restarting from the state n8n last saved (at the last poll that emitted) neither loses nor repeats', async () => {
		await poll();
		const { id: early } = await patchAsset(9, { lastSyncDtm: iso(now) });
		expect(emittedIds(await poll())).toEqual([early]);
		const saved = structuredClone(staticData);
		// polls that emit nothing and read less than a page change nothing
		for (let i = 0; i < 3; i++) {
			now += 10 * MINUTE;
			expect(await poll()).toBeNull();
		}
		expect(staticData).toEqual(saved);
		const { id: late } = await patchAsset(10, { lastSyncDtm: iso(now) });
		// n8n restarted: a new process, given what n8n saved
		staticData = saved;
		now += MINUTE;
		const restarted = { workflowId: 'workflow-after-restart' };
		expect(emittedIds(await poll(assetSynced, restarted))).toEqual([late]);
		expect(await poll(assetSynced, restarted)).toBeNull();
	});

	describe('n8n with durable poller cursors: a poll is handed the state stored when its task began', () => {
		/** What n8n stores and hands back: the state as JSON. */
		const stored = (): IDataObject => JSON.parse(JSON.stringify(staticData)) as IDataObject;

		test('a poll handed the state from before the previous poll emits nothing and stores nothing; the next, handed the newer state, goes on', async () => {
			await poll();
			const { id } = await patchAsset(11, { lastSyncDtm: iso(now) });
			// the next task begins (and reads the state) while this poll runs
			const atTaskStart = stored();
			expect(emittedIds(await poll())).toEqual([id]);
			const committed = stored();

			staticData = atTaskStart;
			expect(await poll()).toBeNull();
			expect(staticData).toEqual(atTaskStart);
			expect(sandbox.journal().filter((call) => call.path === '/api/assets/v1')).toHaveLength(2);

			staticData = committed;
			const { id: next } = await patchAsset(12, { lastSyncDtm: iso(now) });
			expect(emittedIds(await poll())).toEqual([next]);
		});

		test('when the newer state is never stored (its task lost its lease), a poll a minute later reads again from the older one and emits what was lost', async () => {
			await poll();
			const { id } = await patchAsset(13, { lastSyncDtm: iso(now) });
			const atTaskStart = stored();
			// n8n drops this poll's execution and its state with it
			expect(emittedIds(await poll())).toEqual([id]);

			staticData = atTaskStart;
			expect(await poll()).toBeNull();
			const minuteLater = Date.now() + SETTLE_MS;
			jest.spyOn(Date, 'now').mockImplementation(() => minuteLater);
			try {
				expect(emittedIds(await poll())).toEqual([id]);
			} finally {
				jest.restoreAllMocks();
			}
		});
	});

	test('Renewal Notice Due: once per contract, renewal date and notice period; again when either changes', async () => {
		const parameters = { resource: 'contracts', event: 'renewalNoticeDue', withinDays: 30 };
		const today = new Date().toISOString().slice(0, 10);
		// nothing is due at first: every seeded renewal lies in the past
		for (const record of sandbox.store.contracts.all())
			sandbox.store.contracts.put({ ...record, renewalDate: '2020-01-01T00:00:00Z' });
		expect(await poll(parameters)).toBeNull();
		const [soon, later, noNotice] = sandbox.store.contracts.all();
		sandbox.store.contracts.put({
			...soon,
			renewalDate: `${addDays(today, 100)}T00:00:00Z`,
			terminationNoticeDays: 90,
		});
		sandbox.store.contracts.put({
			...later,
			renewalDate: `${addDays(today, 200)}T00:00:00Z`,
			terminationNoticeDays: 90,
		});
		sandbox.store.contracts.put({
			...noNotice,
			renewalDate: `${addDays(today, 20)}T00:00:00Z`,
			terminationNoticeDays: undefined,
		});
		const result = await poll(parameters);
		expect(
			result![0].map((item) => [
				item.json.id,
				item.json.noticeDeadline,
				item.json.daysUntilNoticeDeadline,
			]),
		).toEqual([
			[soon.id, addDays(today, 10), 10],
			[noNotice.id, addDays(today, 20), 20],
		]);
		expect(await poll(parameters)).toBeNull();
		sandbox.store.contracts.put({
			...sandbox.store.contracts.get(soon.id)!,
			renewalDate: `${addDays(today, 101)}T00:00:00Z`,
		});
		expect(emittedIds(await poll(parameters))).toEqual([soon.id]);
		// a longer notice period moves the deadline nearer: reminded again, with the new deadline
		sandbox.store.contracts.put({
			...sandbox.store.contracts.get(soon.id)!,
			terminationNoticeDays: 95,
		});
		expect(emitted(await poll(parameters))).toEqual([
			expect.objectContaining({ id: soon.id, noticeDeadline: addDays(today, 6) }),
		]);
		expect(await poll(parameters)).toBeNull();
	});

	test('Renewal Notice Due: a state saved before (reminders by renewal date alone) reminds nobody again', async () => {
		const parameters = { resource: 'contracts', event: 'renewalNoticeDue', withinDays: 30 };
		const today = new Date().toISOString().slice(0, 10);
		for (const record of sandbox.store.contracts.all())
			sandbox.store.contracts.put({ ...record, renewalDate: '2020-01-01T00:00:00Z' });
		const [due] = sandbox.store.contracts.all();
		const renewal = addDays(today, 40);
		sandbox.store.contracts.put({
			...due,
			renewalDate: `${renewal}T00:00:00Z`,
			terminationNoticeDays: 30,
		});
		// as the earlier version stored it after reminding: whole days, the renewal date alone
		const reminded = new RecordMemory(undefined, 'day');
		reminded.set(due.id, Date.parse(renewal));
		staticData.renewals = {
			key: 'contracts:renewalNoticeDue',
			reminded: reminded.pack(),
		} as unknown as IDataObject;
		expect(await poll(parameters)).toBeNull();
		expect((changesOf('renewals').reminded as PackedMemory).unit).toBe('ms');
		sandbox.store.contracts.put({
			...sandbox.store.contracts.get(due.id)!,
			terminationNoticeDays: 35,
		});
		expect(emittedIds(await poll(parameters))).toEqual([due.id]);
	});
});

describe('Stockroom Trigger at scale', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	let now: number;

	afterEach(() => sandbox.close());
	const startSandbox = async (records: number) => {
		sandbox = await createSandbox({ records });
		credential = sandboxCredential(sandbox);
		now = Date.now();
		sandbox.setClock(() => new Date(now));
	};

	test('a fleet sync of 50,000 assets within a minute: each emitted once, state under 1 MB', async () => {
		await startSandbox(50_000);
		const staticData: IDataObject = {};
		const poll = () =>
			runPoll(trigger, {
				parameters: { resource: 'assets', event: 'assetSynced' } as never,
				credential,
				staticData,
			});
		expect(await poll()).toBeNull();
		const fleet = sandbox.store.assets.all().slice(0, 50_000);
		const start = now;
		for (const [index, record] of fleet.entries()) {
			const at = start + Math.floor((index * MINUTE) / fleet.length);
			sandbox.store.assets.put({ ...record, lastSyncDtm: iso(at), lastModifiedDtm: iso(at) });
		}
		now = start + 2 * MINUTE;
		const ids = (await poll())![0].map((item) => item.json.id);
		expect(new Set(ids).size).toBe(50_000);
		expect(ids.sort()).toEqual(fleet.map((record) => record.id).sort());
		expect(await poll()).toBeNull();
		expect(JSON.stringify(staticData).length).toBeLessThan(1_000_000);
	}, 120_000);

	test('renewal notices for 20,000 contracts, a few pages per poll: every due contract reminded once', async () => {
		await startSandbox(100_000);
		const staticData: IDataObject = {};
		const today = new Date().toISOString().slice(0, 10);
		const parameters = {
			resource: 'contracts',
			event: 'renewalNoticeDue',
			withinDays: 30,
			options: { pageSize: 500 },
		};
		const poll = () =>
			runPoll(trigger, { parameters: parameters as never, credential, staticData, budgetMs: 0 });
		const contracts = sandbox.store.contracts.all();
		expect(contracts.length).toBeGreaterThanOrEqual(20_000);
		for (const record of contracts)
			sandbox.store.contracts.put({ ...record, renewalDate: '2020-01-01T00:00:00Z' });
		expect(await poll()).toBeNull();
		// a third of them come due, spread over the whole id range
		const due = contracts.filter((_, index) => index % 3 === 0);
		for (const record of due)
			sandbox.store.contracts.put({
				...record,
				renewalDate: `${addDays(today, 40)}T00:00:00Z`,
				terminationNoticeDays: 30,
			});
		const reminded: string[] = [];
		for (let polls = 0; polls < 40; polls++) {
			const result = await poll();
			reminded.push(...(result?.[0] ?? []).map((item) => String(item.json.id)));
		}
		expect(reminded.length).toBe(due.length);
		expect(reminded.sort()).toEqual(due.map((record) => record.id).sort());
	}, 120_000);
});
