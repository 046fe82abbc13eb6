import fc from 'fast-check';
import { packMemory, RecordMemory, unpackMemory } from '../../../nodes/StockroomTrigger/memory';

const hexId = fc.stringMatching(/^[0-9a-f]{24}$/);
const DAY = 86_400_000;

describe("the trigger's per-record memory", () => {
	test('packs and unpacks exactly, hex ids or any other ids, any instants (before 1970, far future)', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.dictionary(hexId, fc.integer({ min: -2e12, max: 8e12 })),
					fc.dictionary(fc.string({ maxLength: 30 }), fc.integer({ min: -2e12, max: 8e12 })),
				),
				(entries) => {
					const memory = new Map(Object.entries(entries));
					const packed = packMemory(memory, 'ms');
					expect(packed.count).toBe(memory.size);
					expect(unpackMemory(JSON.parse(JSON.stringify(packed)))).toEqual(memory);
				},
			),
			{ numRuns: 300 },
		);
	});

	test('calendar dates are kept in days', () => {
		const memory = new Map([
			['000000000000000000000001', Date.UTC(2026, 10, 24)],
			['000000000000000000000002', Date.UTC(1999, 0, 1)],
			['000000000000000000000003', Date.UTC(2205, 0, 1)],
		]);
		const packed = packMemory(memory, 'day');
		expect(unpackMemory(packed)).toEqual(memory);
		// 1 header + 1 count + 3 varints of whole days + 3 × 12 id bytes, in base64
		expect(packed.data.length).toBeLessThanOrEqual(Math.ceil(((2 + 3 * 3 + 36) * 4) / 3));
	});

	test('a bulk sync of 50,000 assets within a minute packs into well under 1 MB', () => {
		const memory = new Map<string, number>();
		const start = Date.UTC(2026, 10, 24, 9);
		for (let i = 0; i < 50_000; i++)
			memory.set(i.toString(16).padStart(24, '0'), start + Math.floor(Math.random() * 60_000));
		const size = JSON.stringify(packMemory(memory, 'ms')).length;
		// 12 id bytes + a one- or two-byte difference per asset, base64: ~18 characters each
		expect(size).toBeLessThan(19 * 50_000);
		expect(size).toBeLessThan(1_000_000);
	});

	test('a value a year apart from its neighbour costs a few bytes, not a collision', () => {
		const memory = new Map([
			['aaaaaaaaaaaaaaaaaaaaaaaa', Date.UTC(2026, 0, 1)],
			['bbbbbbbbbbbbbbbbbbbbbbbb', Date.UTC(2026, 0, 1) + 365 * DAY + 1],
		]);
		expect(unpackMemory(packMemory(memory, 'ms'))).toEqual(memory);
	});

	test('text it did not write is refused, not misread', () => {
		expect(() => unpackMemory({ unit: 'ms', count: 1, data: 'not base64!' })).toThrow(
			/not readable/,
		);
		expect(() => unpackMemory({ unit: 'ms', count: 1, data: 'AQE' })).toThrow(/cut short/);
	});
});

describe('RecordMemory', () => {
	const packed = packMemory(new Map([['aaaaaaaaaaaaaaaaaaaaaaaa', 1000]]), 'ms');

	test('reading or writing what is already there keeps the packed text as it was', () => {
		const memory = new RecordMemory(packed, 'ms');
		expect(memory.get('aaaaaaaaaaaaaaaaaaaaaaaa')).toBe(1000);
		memory.set('aaaaaaaaaaaaaaaaaaaaaaaa', 1000);
		memory.delete('bbbbbbbbbbbbbbbbbbbbbbbb');
		memory.forgetBefore(1000);
		expect(memory.pack()).toBe(packed);
	});

	test('a change is packed; forgetting drops what is older', () => {
		const memory = new RecordMemory(packed, 'ms');
		memory.set('bbbbbbbbbbbbbbbbbbbbbbbb', 2000);
		expect(unpackMemory(memory.pack())).toEqual(
			new Map([
				['aaaaaaaaaaaaaaaaaaaaaaaa', 1000],
				['bbbbbbbbbbbbbbbbbbbbbbbb', 2000],
			]),
		);
		memory.forgetBefore(1500);
		expect(unpackMemory(memory.pack())).toEqual(new Map([['bbbbbbbbbbbbbbbbbbbbbbbb', 2000]]));
		expect(new RecordMemory(undefined, 'day').pack()).toEqual({
			unit: 'day',
			count: 0,
			data: 'AQA',
		});
	});
});
