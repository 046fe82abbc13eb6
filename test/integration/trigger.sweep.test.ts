import type { IDataObject } from 'n8n-workflow';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import type { ChangeState } from '../../nodes/StockroomTrigger/changes';
import { RecordMemory } from '../../nodes/StockroomTrigger/memory';
import { MAX_SHARE, Tally } from '../../nodes/StockroomTrigger/sweep';
import { createSandbox, type Sandbox } from '../../sandbox/server';
import { createGateway, type Gateway } from '../helpers/gateway';
import { captureWarnings, runPoll, sandboxCredential, type CredentialStore } from '../helpers/n8n';

/**
 * The sweep that forgets deleted records (Asset Synced), over real HTTP, meeting what a real
 * service or a gateway in front of it may send: short and empty pages with `next`, a gateway's
 * empty answer where the list goes on, a page that lost its `next`, ids out of order, and a mass
 * deletion. A record the sweep wrongly forgets shows when it is edited in another field: its
 * Last Synced At is then emitted as a sync. So every test ends by editing every asset.
 */

const trigger = new StockroomTrigger();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

/** What the tests share: a sandbox (through a gateway), the trigger's state and n8n's log. */
function sweepHarness(records: number, pageSize: number) {
	const h = {
		sandbox: undefined as unknown as Sandbox,
		gateway: undefined as unknown as Gateway,
		credential: undefined as unknown as CredentialStore,
		staticData: {} as IDataObject,
		now: 0,
		workflowId: '',
		warnings: undefined as unknown as ReturnType<typeof captureWarnings>,
		parameters: { resource: 'assets', event: 'assetSynced', options: { pageSize } },
	};
	beforeAll(async () => {
		h.sandbox = await createSandbox({ records });
		h.gateway = await createGateway(h.sandbox);
		h.credential = sandboxCredential(h.sandbox, { baseUrl: h.gateway.url });
	});
	afterAll(async () => {
		await h.gateway.close();
		await h.sandbox.close();
	});
	beforeEach(() => {
		h.workflowId = expect.getState().currentTestName ?? 'workflow';
		h.sandbox.reset();
		h.staticData = {};
		h.now = Date.now();
		h.sandbox.setClock(() => new Date(h.now));
		h.warnings = captureWarnings();
	});
	afterEach(() => {
		h.warnings.restore();
		h.sandbox.setFaults('');
	});
	return h;
}

describe('the sweep for deleted records, on what a real service or its gateway may send', () => {
	const h = sweepHarness(300, 30);
	const poll = (staticData = h.staticData) =>
		runPoll(trigger, {
			parameters: h.parameters as never,
			credential: h.credential,
			staticData,
			workflowId: h.workflowId,
		});
	const changes = () => h.staticData.changes as unknown as ChangeState;
	const remembered = (id: string) => new RecordMemory(changes().memory, 'ms').get(id);
	const count = () => changes().memory.count;
	const sweepWarnings = () =>
		h.warnings.messages().filter((message) => message.includes('sweep for deleted records'));

	/** Activates the trigger, then three assets are deleted (from the list's start, middle, end). */
	async function activateAndDelete(): Promise<string[]> {
		await poll();
		h.now += MINUTE;
		await poll();
		const gone = [5, 150, 290].map((index) => h.sandbox.store.assets.all()[index].id);
		for (const id of gone) h.sandbox.store.assets.delete(id);
		expect(gone.map(remembered)).not.toContain(undefined);
		return gone;
	}

	/** Half a day later, polls a minute apart until the sweep that begins ends; emits nothing. */
	async function sweep(): Promise<number> {
		h.now += 13 * HOUR;
		for (let polls = 1; polls <= 12; polls++) {
			h.now += MINUTE;
			expect(await poll()).toBeNull();
			if (changes().sweep?.tally === undefined) return polls;
		}
		throw new Error('the sweep has not ended');
	}

	/** Every asset edited in another field: none may be emitted (one that is was forgotten). */
	async function editEveryAsset(): Promise<void> {
		for (const record of h.sandbox.store.assets.all()) {
			h.now += 1;
			h.sandbox.store.assets.put({
				...record,
				notes: `edited ${h.now}`,
				lastModifiedDtm: iso(h.now),
			});
		}
		h.now += MINUTE;
		expect(await poll()).toBeNull();
	}

	test.each([
		['pages with no records and a next link', 'empty:0.4'],
		['pages with fewer records than the limit and a next link', 'short:0.5'],
	])('%s are read on: the deleted records are forgotten, none that exists', async (_, faults) => {
		const gone = await activateAndDelete();
		const before = count();
		h.sandbox.setFaults(faults);
		await sweep();
		h.sandbox.setFaults('');
		const kind = faults.split(':')[0];
		// sweep pages (no `since`) met the fault
		expect(
			h.sandbox.journal().filter((call) => call.fault === kind && !call.query.since),
		).not.toEqual([]);
		expect(gone.map(remembered)).toEqual([undefined, undefined, undefined]);
		expect(count()).toBe(before - 3);
		expect(sweepWarnings()).toEqual([]);
		await editEveryAsset();
	});

	test.each([
		['its first page', 1],
		['a later page', 3],
	])(
		'a gateway\'s empty answer where the list goes on ({"results": []} without next) on %s: the sweep forgets nothing and says so in n8n\'s log; the next sweep forgets the deleted records',
		async (_, page) => {
			const gone = await activateAndDelete();
			const before = count();
			// each sweep poll reads what changed first, then the sweep's pages
			h.sandbox.failNext(1, 'cutoff', page);
			await sweep();
			expect(sweepWarnings()).toEqual([
				expect.stringMatching(
					/forgot nothing: the service answered an empty page where more records were announced \(\d+ remembered records not seen\)/,
				),
			]);
			expect(count()).toBe(before);
			expect(changes().sweep).toEqual({ began: expect.any(String) });
			await sweep();
			expect(gone.map(remembered)).toEqual([undefined, undefined, undefined]);
			expect(count()).toBe(before - 3);
			await editEveryAsset();
		},
	);

	test("ids out of order: the sweep forgets nothing and says so in n8n's log; the next sweep forgets the deleted records", async () => {
		const gone = await activateAndDelete();
		const before = count();
		h.sandbox.failNext(1, 'unordered', 2);
		await sweep();
		expect(sweepWarnings()).toEqual([
			expect.stringMatching(
				/forgot nothing: the service listed id [0-9a-f]{24} after [0-9a-f]{24}, not in ascending id order/,
			),
		]);
		expect(count()).toBe(before);
		await sweep();
		expect(gone.map(remembered)).toEqual([undefined, undefined, undefined]);
		await editEveryAsset();
	});

	test('a page that lost its next link on the way (a proxy) is not taken for the end: the sweep asks for what follows it', async () => {
		const gone = await activateAndDelete();
		const before = count();
		// the sweep's 9th page of 30, as the service has it, without its `next`: in the third sweep
		// poll, after that poll's own read
		const ninth = h.sandbox.store.assets.all().slice(240, 270);
		await sweepUntilPage(9);
		h.gateway.answerNext(
			1,
			{ status: 200, contentType: 'application/json', body: JSON.stringify({ results: ninth }) },
			1,
		);
		h.sandbox.resetStats();
		h.now += MINUTE;
		await poll();
		// the gateway answered the 9th page; the service was asked for what follows it
		expect(h.sandbox.journal()[1].query.filter).toBe(`id gt "${ninth[29].id}"`);
		for (let polls = 0; changes().sweep?.tally !== undefined && polls < 3; polls++) {
			h.now += MINUTE;
			await poll();
		}
		expect(changes().sweep?.tally).toBeUndefined();
		expect(gone.map(remembered)).toEqual([undefined, undefined, undefined]);
		expect(count()).toBe(before - 3);
		await editEveryAsset();

		/** Half a day later, the sweep polls that read its first `pages - 1` pages (4 a poll). */
		async function sweepUntilPage(pages: number): Promise<void> {
			h.now += 13 * HOUR;
			for (let read = 1; read < pages; read += 4) {
				h.now += MINUTE;
				await poll();
			}
		}
	});

	test('a list cut short so that its shape does not show it (a page without next, then an empty answer) is caught by the count: the sweep forgets none of what it missed, the sweeps after it forget the deleted records', async () => {
		const gone = await activateAndDelete();
		const before = count();
		// the sweep's second page without its `next`, then `{"results": []}` for what follows it
		const second = h.sandbox.store.assets.all().slice(30, 60);
		h.gateway.answerNext(
			1,
			{ status: 200, contentType: 'application/json', body: JSON.stringify({ results: second }) },
			2,
		);
		h.sandbox.failNext(1, 'cutoff', 2);
		await sweep();
		expect(sweepWarnings()).toEqual([
			expect.stringMatching(
				/did not see \d+ remembered records, more than it forgets at once \(\d+\): a mass deletion, or reads cut short; it forgot none of them/,
			),
		]);
		expect(count()).toBe(before);
		// the sweeps that follow at once, each counting a share of the memory
		for (let polls = 0; changes().sweep?.share !== undefined && polls < 40; polls++) {
			h.now += MINUTE;
			expect(await poll()).toBeNull();
		}
		expect(gone.map(remembered)).toEqual([undefined, undefined, undefined]);
		expect(count()).toBe(before - 3);
		await editEveryAsset();
	});
});

describe('a mass deletion between two sweeps', () => {
	const h = sweepHarness(2000, 1000);
	const poll = (staticData = h.staticData) =>
		runPoll(trigger, {
			parameters: h.parameters as never,
			credential: h.credential,
			staticData,
			workflowId: h.workflowId,
		});
	const changes = () => h.staticData.changes as unknown as ChangeState;
	const sweptAt = () => changes().sweep?.began;

	/**
	 * What the earlier version stored in a sweep after 20,000 deletions: its largest tally (24,576
	 * cells) with every key counted in, which it could never read back, so it never forgot again.
	 */
	const earlierStuckSweep = (state: ChangeState) => {
		const tally = new Tally(24_576);
		new RecordMemory(state.memory, 'ms').forEachKey((key) => tally.add(key, 1));
		return { began: state.floor, after: '', tally: tally.pack(), cells: 24_576 };
	};

	test.each([
		['a state of this version', undefined],
		['a state the earlier version left stuck with its largest tally', earlierStuckSweep],
	])(
		"%s: the first sweep forgets none (n8n's log says why), the shares after it forget all deleted records within the stated bound, none that exists; the state is back to a fresh activation's size",
		async (_, earlierSweep) => {
			await poll();
			h.now += MINUTE;
			await poll();
			const before = changes().memory.count;
			const gone = h.sandbox.massDelete('assets', 0.75);
			const remembered = new RecordMemory(changes().memory, 'ms');
			const missing = gone.filter((id) => remembered.get(id) !== undefined).length;
			if (earlierSweep) changes().sweep = earlierSweep(changes());
			h.now += 13 * HOUR;
			await poll();
			expect(changes().memory.count).toBe(before);
			expect(h.warnings.messages().filter((message) => message.includes('sweep'))).toEqual([
				expect.stringMatching(
					new RegExp(
						`did not see ${missing} remembered records, more than it forgets at once \\(\\d+\\): a mass deletion, or reads cut short; it forgot none of them, and the next \\d+ sweeps`,
					),
				),
			]);
			// the sweeps that follow, one after another, a minute apart
			let sweeps = 1;
			for (let polls = 0; changes().sweep?.share !== undefined && polls < 20; polls++) {
				const began = sweptAt();
				h.now += MINUTE;
				expect(await poll()).toBeNull();
				if (sweptAt() !== began) sweeps++;
			}
			expect(changes().sweep).toEqual({ began: expect.any(String) });
			// the bound README states: 1 + max(4, ceil(D / MAX_SHARE)) sweeps
			expect(sweeps).toBeGreaterThan(1);
			expect(sweeps).toBeLessThanOrEqual(1 + Math.max(4, Math.ceil(missing / MAX_SHARE)));
			expect(changes().memory.count).toBe(before - missing);
			const fresh: IDataObject = {};
			await poll(fresh);
			const size = (state: IDataObject) => JSON.stringify(state).length;
			expect(size(h.staticData)).toBeLessThan(size(fresh) * 1.1);
			// every survivor edited in another field: none was forgotten
			for (const record of h.sandbox.store.assets.all()) {
				h.now += 1;
				h.sandbox.store.assets.put({ ...record, notes: 'edited', lastModifiedDtm: iso(h.now) });
			}
			h.now += MINUTE;
			expect(await poll()).toBeNull();
		},
	);
});
