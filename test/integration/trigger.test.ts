import type { IDataObject } from 'n8n-workflow';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import { addDays } from '../../nodes/StockroomTrigger/renewals';
import { createSandbox, type Sandbox } from '../sandbox/server';
import { runPoll, sandboxCredential, type CredentialStore } from '../helpers/n8n';

const trigger = new StockroomTrigger();
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('Stockroom Trigger against the sandbox', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	let staticData: IDataObject;
	const assetSynced = { resource: 'assets', event: 'assetSynced' };
	const poll = (
		parameters: IDataObject = assetSynced,
		extra: { mode?: 'manual'; budgetMs?: number } = {},
	) => runPoll(trigger, { parameters: parameters as never, credential, staticData, ...extra });
	const emittedIds = (result: Awaited<ReturnType<typeof poll>>) =>
		result ? result[0].map((item) => item.json.id) : [];
	const apiCalls = () => sandbox.journal().filter((entry) => entry.path.startsWith('/api/'));
	/** Sets an asset's lastSyncDtm directly in the store, as a device-management sync would. */
	const sync = (index: number, at: number) => {
		const asset = sandbox.store.assets.all()[index];
		sandbox.store.assets.put({ ...asset, lastSyncDtm: iso(at) });
		return asset.id;
	};

	beforeAll(async () => {
		sandbox = await createSandbox({ records: 300 });
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());
	beforeEach(() => {
		sandbox.reset();
		sandbox.resetStats();
		staticData = {};
	});

	test('first activation emits nothing old; a poll with no changes costs one request', async () => {
		sync(0, Date.now() - MINUTE); // recent, but from before activation
		expect(await poll()).toBeNull();
		expect(staticData.changes).toMatchObject({
			key: 'assets:assetSynced',
			cursor: expect.any(String),
		});
		sandbox.resetStats();
		expect(await poll()).toBeNull();
		const calls = apiCalls();
		expect(calls).toHaveLength(1);
		expect(calls[0].query.filter).toMatch(
			/^lastSyncDtm ge "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/,
		);
	});

	test('each sync is emitted once, with the event name; ties on the cursor are neither lost nor repeated', async () => {
		await poll();
		const at = Date.now() + MINUTE;
		const first = sync(1, at);
		const result = await poll();
		expect(emittedIds(result)).toEqual([first]);
		expect(result![0][0].json).toMatchObject({
			id: first,
			event: 'assetSynced',
			lastSyncDtm: iso(at),
		});
		expect((staticData.changes as IDataObject).cursor).toBe(iso(at));
		// another asset syncing at exactly the cursor's instant
		const tie = sync(2, at);
		expect(emittedIds(await poll())).toEqual([tie]);
		expect(await poll()).toBeNull();
		// the same asset syncing again is a new change
		sync(1, at + 1000);
		expect(emittedIds(await poll())).toEqual([first]);
	});

	test('a late write inside the lookback is caught once; one behind it is not re-read', async () => {
		await poll();
		const at = Date.now() + 10 * MINUTE;
		sync(3, at);
		await poll();
		const late = sync(4, at - 3 * MINUTE);
		expect(emittedIds(await poll())).toEqual([late]);
		expect(await poll()).toBeNull();
		sync(5, at - 6 * MINUTE);
		expect(await poll()).toBeNull();
		expect(apiCalls().at(-1)?.query.filter).toBe(`lastSyncDtm ge "${iso(at - 5 * MINUTE)}"`);
	});

	test('the user filter is combined with the window on the server side', async () => {
		const parameters = {
			...assetSynced,
			filterMode: 'expression',
			filterExpression: 'status eq "Deployed" or hardwareVendor eq "Dell"',
		};
		await poll(parameters);
		expect(apiCalls().at(-1)?.query.filter).toMatch(
			/^\(status eq "Deployed" or hardwareVendor eq "Dell"\) and lastSyncDtm ge "/,
		);
	});

	test('a custom number field in the builder is sent as a number, as in Get Many', async () => {
		const parameters = {
			...assetSynced,
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
		expect(apiCalls()[1].query.filter).toMatch(
			/^customFieldValues\.memoryGb ge 16 and lastSyncDtm ge "/,
		);
	});

	test('a failed poll leaves the state as it was, and the next poll emits the change', async () => {
		await poll();
		const id = sync(6, Date.now() + MINUTE);
		const before = structuredClone(staticData);
		sandbox.setFaults('500:1');
		await expect(poll()).rejects.toThrow('HTTP 500');
		expect(staticData).toEqual(before);
		sandbox.setFaults('');
		expect(emittedIds(await poll())).toEqual([id]);
	});

	test('a backlog longer than the poll budget continues where it stopped, each change once', async () => {
		await poll();
		const at = Date.now() + MINUTE;
		const changed = sandbox.store.assets.all().map((asset, index) => {
			sandbox.store.assets.put({ ...asset, lastSyncDtm: iso(at + index) });
			return asset.id;
		});
		const parameters = { ...assetSynced, options: { pageSize: 100 } };
		const emitted: unknown[] = [];
		const first = await poll(parameters, { budgetMs: 0 });
		emitted.push(...emittedIds(first));
		expect(emitted).toHaveLength(100);
		expect(staticData.changes).toMatchObject({
			resume: { next: expect.stringContaining('after=') },
		});
		for (let polls = 0; polls < 5 && (staticData.changes as IDataObject).resume; polls++)
			emitted.push(...emittedIds(await poll(parameters, { budgetMs: 0 })));
		expect(emitted).toEqual(changed);
		expect((staticData.changes as IDataObject).cursor).toBe(iso(at + changed.length - 1));
		expect(await poll(parameters)).toBeNull();
	});

	test('Include existing records emits the most recent ones, up to the cap', async () => {
		const base = Date.now() - 60 * MINUTE;
		const ids = [0, 1, 2].map((index) => sync(index, base + index * MINUTE));
		const result = await poll({
			...assetSynced,
			filterMode: 'expression',
			filterExpression: 'lastSyncDtm ge "' + iso(base) + '"',
			options: { firstRun: 'includeExisting', maxExisting: 2 },
		});
		expect(emittedIds(result)).toEqual([ids[2], ids[1]]);
		expect(await poll()).toBeNull();
	});

	test('Fetch Test Event shows the most recent record and moves nothing', async () => {
		const id = sync(7, Date.now() + 5 * MINUTE);
		const result = await poll(assetSynced, { mode: 'manual' });
		expect(emittedIds(result)).toEqual([id]);
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

	test('Record Changed reads the window with since; each write is emitted once', async () => {
		const parameters = { resource: 'contracts', event: 'recordChanged' };
		sandbox.setClock(() => new Date(Date.now() + MINUTE));
		await poll(parameters);
		const contract = sandbox.store.contracts.all()[0];
		const response = await fetch(`${sandbox.url}/api/contracts/v1`, {
			method: 'PUT',
			headers: { Authorization: `Bearer ${sandbox.token()}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ ...contract, notes: 'changed' }),
		});
		expect(response.status).toBe(200);
		const result = await poll(parameters);
		expect(result![0].map((item) => [item.json.id, item.json.notes, item.json.event])).toEqual([
			[contract.id, 'changed', 'recordChanged'],
		]);
		expect(apiCalls().at(-1)?.query).toMatchObject({ since: expect.stringMatching(/Z$/) });
		expect(apiCalls().at(-1)?.query.filter).toBeUndefined();
		expect(await poll(parameters)).toBeNull();
	});

	test('Contract Agreement Dated watches a date with a lookback in days', async () => {
		const parameters = { resource: 'contracts', event: 'contractAgreementDated' };
		await poll(parameters);
		expect(apiCalls().at(-1)?.query.filter).toMatch(/^agreementDate ge "\d{4}-\d\d-\d\d"$/);
		const contract = sandbox.store.contracts.all()[1];
		const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
		sandbox.store.contracts.put({ ...contract, agreementDate: `${tomorrow}T00:00:00Z` });
		expect(emittedIds(await poll(parameters))).toEqual([contract.id]);
		expect(await poll(parameters)).toBeNull();
	});

	test('Renewal Notice Due: once per contract and renewal date, again when the date changes', async () => {
		const parameters = { resource: 'contracts', event: 'renewalNoticeDue', withinDays: 30 };
		const today = new Date().toISOString().slice(0, 10);
		// nothing is due at first: every seeded renewal lies in the past
		for (const contract of sandbox.store.contracts.all())
			sandbox.store.contracts.put({ ...contract, renewalDate: '2020-01-01T00:00:00Z' });
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
	});
});
