import fc from 'fast-check';
import { fingerprintOf, type MemoryKey } from '../../../nodes/StockroomTrigger/memory';
import { MAX_SHARE, planShares, Tally } from '../../../nodes/StockroomTrigger/sweep';

const keys = (count: number, prefix: string): MemoryKey[] =>
	Array.from({ length: count }, (_, index) => fingerprintOf(`${prefix}${index}`));
const sorted = (list: MemoryKey[] | undefined) =>
	list?.map(({ bucket, fingerprint }) => `${bucket}:${fingerprint}`).sort();

describe('the sweep tally', () => {
	test('gives back exactly the keys counted in and never out, whatever the fleet size; keys seen but never counted in are not among them', () => {
		const remembered = keys(100_000, 'asset-');
		const tally = new Tally(240);
		for (const key of remembered) tally.add(key, 1);
		const deleted = remembered.filter((_, index) => index % 1000 === 7);
		for (const key of remembered) if (!deleted.includes(key)) tally.add(key, -1);
		// seen by the sweep, learned after it began and behind it
		for (const key of keys(20, 'new-')) tally.add(key, -1);

		const back = Tally.unpack(tally.pack());
		expect(back.pack()).toBe(tally.pack());
		expect(sorted(back.unseen())).toEqual(sorted(deleted));
		expect(tally.pack().length).toBeLessThan(5000);
	});

	test('too many keys left for its size: it gives back nothing rather than a guess, and still says how many there are', () => {
		const tally = new Tally(240);
		for (const key of keys(400, 'gone-')) tally.add(key, 1);
		for (const key of keys(100, 'gone-')) tally.add(key, -1);
		expect(tally.unseen()).toBeUndefined();
		expect(tally.net()).toBe(300);
		expect(Tally.unpack(tally.pack()).net()).toBe(300);
	});

	test('the largest tally gives back as many keys as the largest share may forget', () => {
		const tally = new Tally(3 * 8192);
		const left = keys(Math.ceil(MAX_SHARE * 1.1) + 16, 'share-');
		for (const key of left) tally.add(key, 1);
		expect(sorted(tally.unseen())).toEqual(sorted(left));
	});
});

describe('the shares that follow a sweep that missed too many records', () => {
	test.each([
		// a retirement wave: half of 100,000, in shares the largest tally reads back
		[50_000, 100_000, { index: 0, of: 4, expected: 12_500 }],
		// three quarters of a small fleet: a quarter of the memory at a time
		[966, 1290, { index: 0, of: 3, expected: 322 }],
		// every record of a tiny one
		[3, 3, { index: 0, of: 3, expected: 1 }],
		// a million of ten million
		[1_000_000, 10_000_000, { index: 0, of: 68, expected: 14_706 }],
	])('%i missing of %i remembered: %j', (missing, remembered, plan) => {
		expect(planShares(missing, remembered)).toEqual(plan);
	});

	test('each share is planned for no more than a quarter of the memory nor the largest share; D missing records take at most max(4, ceil(D / MAX_SHARE)) shares', () => {
		fc.assert(
			fc.property(
				fc
					.integer({ min: 1, max: 20_000_000 })
					.chain((remembered) =>
						fc.tuple(fc.integer({ min: 1, max: remembered }), fc.constant(remembered)),
					),
				([missing, remembered]) => {
					const { index, of, expected } = planShares(missing, remembered);
					expect(index).toBe(0);
					expect(expected * of).toBeGreaterThanOrEqual(missing);
					expect(expected).toBeLessThanOrEqual(
						Math.max(1, Math.min(MAX_SHARE, Math.ceil(remembered / 4))),
					);
					expect(of).toBeLessThanOrEqual(Math.max(4, Math.ceil(missing / MAX_SHARE)));
				},
			),
			{ numRuns: 2000 },
		);
	});
});
