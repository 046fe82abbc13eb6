import { fingerprintOf, type MemoryKey } from '../../../nodes/StockroomTrigger/memory';
import { Tally } from '../../../nodes/StockroomTrigger/sweep';

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

	test('too many keys left for its size: it gives back nothing rather than a guess', () => {
		const tally = new Tally(240);
		for (const key of keys(400, 'gone-')) tally.add(key, 1);
		expect(tally.unseen()).toBeUndefined();
	});
});
