import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { StockroomTrigger } from '../../nodes/StockroomTrigger/StockroomTrigger.node';
import { createSandbox, type Sandbox } from '../sandbox/server';
import { runPoll, sandboxCredential, type CredentialStore } from '../helpers/n8n';

const trigger = new StockroomTrigger();
const LOOKBACK = 5 * 60_000;
const parameters = {
	resource: 'assets',
	event: 'assetSynced',
	options: { pageSize: 7, maxAttempts: 1 },
};

/** One step of a random history: a sync, a poll (maybe failing), or time passing. */
type Step =
	| { kind: 'sync'; asset: number; lateBy: number; tieWithLast: boolean }
	| { kind: 'poll'; fault: 'none' | '500' | 'reset' }
	| { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant('sync' as const),
			asset: fc.integer({ min: 0, max: 11 }),
			lateBy: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: LOOKBACK / 2 })),
			tieWithLast: fc.boolean(),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('poll' as const),
			fault: fc.constantFrom('none' as const, 'none' as const, '500' as const, 'reset' as const),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('wait' as const),
			ms: fc.integer({ min: 1, max: 3 * 60_000 }),
		}),
	},
);

describe('trigger property: every change is emitted exactly once', () => {
	let sandbox: Sandbox;
	let credential: CredentialStore;
	beforeAll(async () => {
		sandbox = await createSandbox();
		credential = sandboxCredential(sandbox);
	});
	afterAll(() => sandbox.close());

	test('random syncs (ties, late writes inside the lookback, repeats) with polls and faults', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
				sandbox.reset();
				const staticData: IDataObject = {};
				const poll = () =>
					runPoll(trigger, { parameters: parameters as never, credential, staticData });
				await poll(); // activation: nothing before it counts
				let clock = Date.now() + 60_000;
				let lastValue = clock;
				const current = new Map<string, number>();
				const observable = new Set<string>();
				const emitted: string[] = [];
				const pairs = () =>
					[...current].map(([id, value]) => `${id}@${new Date(value).toISOString()}`);
				const record = (result: Awaited<ReturnType<typeof poll>>) => {
					for (const item of result?.[0] ?? [])
						emitted.push(
							`${String(item.json.id)}@${new Date(String(item.json.lastSyncDtm)).toISOString()}`,
						);
				};
				for (const action of steps) {
					if (action.kind === 'wait') clock += action.ms;
					if (action.kind === 'sync') {
						const asset = sandbox.store.assets.all()[action.asset];
						// a device's own sync times only move forward
						const value = Math.max(
							action.tieWithLast ? lastValue : clock - action.lateBy,
							(current.get(asset.id) ?? 0) + 1,
						);
						lastValue = value;
						current.set(asset.id, value);
						sandbox.store.assets.put({ ...asset, lastSyncDtm: new Date(value).toISOString() });
					}
					if (action.kind === 'poll') {
						if (action.fault !== 'none') sandbox.setFaults(`${action.fault}:1`);
						const snapshot = pairs();
						const result = await poll().catch(() => 'failed' as const);
						sandbox.setFaults('');
						if (result !== 'failed') {
							snapshot.forEach((pair) => observable.add(pair));
							record(result);
						}
					}
				}
				const final = pairs();
				record(await poll());
				final.forEach((pair) => observable.add(pair));
				// nothing twice, nothing invented, and everything a successful poll could see
				expect(new Set(emitted).size).toBe(emitted.length);
				const written = new Set(final.concat([...observable]));
				expect(emitted.every((pair) => written.has(pair))).toBe(true);
				expect([...observable].filter((pair) => !emitted.includes(pair))).toEqual([]);
			}),
			{ numRuns: 60 },
		);
	}, 120_000);
});
