import fc from 'fast-check';
import {
	fingerprintOf,
	RecordMemory,
	type PackedMemory,
} from '../../../nodes/StockroomTrigger/memory';

const hexId = fc.stringMatching(/^[0-9a-f]{24}$/);
/** What n8n stores and reads back. */
const stored = (packed: PackedMemory): PackedMemory => JSON.parse(JSON.stringify(packed));
/** 100,000 assets with hex ids spread over the hash, each with the instant `instantOf` gives it. */
const fleetOf = (instantOf: (index: number) => number): Array<[string, number]> =>
	Array.from({ length: 100_000 }, (_, i) => [
		((i * 2654435761) % 2 ** 32).toString(16).padStart(8, '0') + i.toString(16).padStart(16, '0'),
		instantOf(i),
	]);
const memoryOf = (entries: Iterable<[string, number]>, unit: 'ms' | 'day' = 'ms') => {
	const memory = new RecordMemory(undefined, unit);
	for (const [id, instant] of entries) memory.set(id, instant);
	return memory.pack();
};

describe("the trigger's per-record memory", () => {
	test('packs and reads back every record, hex ids or any other ids, any instants (before 1970, far future)', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.dictionary(hexId, fc.integer({ min: -2e12, max: 8e12 })),
					// whole seconds and minutes are packed in those units
					fc.dictionary(
						hexId,
						fc.integer({ min: -2e9, max: 8e9 }).map((second) => second * 1000),
					),
					fc.dictionary(
						hexId,
						fc.integer({ min: -3e7, max: 1e8 }).map((minute) => minute * 60_000),
					),
					fc.dictionary(fc.string({ maxLength: 30 }), fc.integer({ min: -2e12, max: 8e12 })),
				),
				(entries) => {
					const packed = stored(memoryOf(Object.entries(entries)));
					expect(packed.count).toBe(Object.keys(entries).length);
					const memory = new RecordMemory(packed, 'ms');
					for (const [id, instant] of Object.entries(entries)) expect(memory.get(id)).toBe(instant);
				},
			),
			{ numRuns: 300 },
		);
	});

	test('calendar dates are kept in days', () => {
		const dates: Array<[string, number]> = [
			['000000000000000000000001', Date.UTC(2026, 10, 24)],
			['000000000000000000000002', Date.UTC(1999, 0, 1)],
			['000000000000000000000003', Date.UTC(2205, 0, 1)],
		];
		const memory = new RecordMemory(stored(memoryOf(dates, 'day')), 'day');
		for (const [id, instant] of dates) expect(memory.get(id)).toBe(instant);
	});

	test('100,000 assets synced within a minute take under 1.0 MB; a poll that changes one of them repacks one bucket', () => {
		const start = Date.UTC(2026, 10, 24, 9);
		const entries = fleetOf((i) => start + ((i * 7919) % 60_000));
		const packed = stored(memoryOf(entries));
		expect(JSON.stringify(packed).length).toBeLessThan(1_000_000);
		const memory = new RecordMemory(packed, 'ms');
		memory.set(entries[500][0], Date.UTC(2026, 10, 26));
		const after = stored(memory.pack());
		const changed = Object.keys(after.buckets!).filter(
			(bucket) => after.buckets![bucket] !== packed.buckets![bucket],
		);
		expect(changed).toEqual([String(fingerprintOf(entries[500][0]).bucket)]);
		expect(after.count).toBe(100_000);
		// in proportion to the change, not the fleet: well under a tenth of reading every bucket
		const cpuOf = (work: (memory: RecordMemory) => void) => {
			const started = process.cpuUsage();
			const memory = new RecordMemory(after, 'ms');
			work(memory);
			expect(memory.get(entries[500][0])).toBe(Date.UTC(2026, 10, 26));
			memory.set(entries[500][0], Date.UTC(2026, 10, 27));
			memory.pack();
			const { user, system } = process.cpuUsage(started);
			return user + system;
		};
		const whole = cpuOf((memory) => memory.forgetBefore(-Infinity));
		expect(cpuOf(() => undefined) * 10).toBeLessThan(whole);
	});

	test('a bulk sync beside far outliers: every instant read back exactly', () => {
		const start = Date.UTC(2026, 10, 24, 9);
		const entries: Array<[string, number]> = [];
		for (let i = 0; i < 20_000; i++) entries.push([`asset-${i}`, start + (i % 1000)]);
		entries.push(['far-future', Date.UTC(2205, 0, 1)], ['before-1970', Date.UTC(1969, 0, 1)]);
		const memory = new RecordMemory(stored(memoryOf(entries)), 'ms');
		for (const [id, instant] of entries) expect(memory.get(id)).toBe(instant);
	});

	test('100,000 assets synced over a day take under 1.0 MB (the earlier format: 1.09 MB)', () => {
		const start = Date.UTC(2026, 10, 24, 9);
		const entries = fleetOf((i) => start - ((i * 2_654_435_761) % 86_400_000));
		const text = JSON.stringify(memoryOf(entries));
		expect(text.length).toBeLessThan(1_000_000);
		const memory = new RecordMemory(JSON.parse(text), 'ms');
		for (const [id, instant] of entries.slice(0, 1000)) expect(memory.get(id)).toBe(instant);
	});

	test('buckets saved in the earlier format (varint differences, base64) load; a changed one is rewritten, the rest stay', () => {
		// written by the previous version of this file
		const earlier: PackedMemory = {
			unit: 'ms',
			count: 4,
			buckets: {
				'45': 'AwHsp+/yvWDU6ZoYxg',
				'232': 'AwEBSlgG0mc',
				'566': 'AwGCusTMwWj1Pb+CGg',
				'946': 'AwGAgO/S1K8DySQfw50',
			},
		};
		const memory = new RecordMemory(earlier, 'ms');
		expect(memory.get('62cc97040b3aa0bdaf28dd9a')).toBe(Date.UTC(2026, 10, 24, 9, 0, 0, 1));
		expect(memory.get('630cc44116f65c10c140a2ce')).toBe(Date.UTC(2022, 6, 11, 21, 32, 52, 598));
		expect(memory.get('000000000000000000000001')).toBe(Date.UTC(2205, 0, 1));
		expect(memory.get('000000000000000000000002')).toBe(Date.UTC(1969, 11, 31, 23, 59, 59, 999));
		expect(memory.pack()).toBe(earlier);
		memory.set('62cc97040b3aa0bdaf28dd9a', Date.UTC(2026, 10, 25));
		const after = stored(memory.pack());
		expect({ ...after.buckets, '566': 'changed' }).toEqual({
			...earlier.buckets,
			'566': 'changed',
		});
		expect(after.buckets!['566']).not.toBe(earlier.buckets!['566']);
		const again = new RecordMemory(after, 'ms');
		expect(again.get('62cc97040b3aa0bdaf28dd9a')).toBe(Date.UTC(2026, 10, 25));
		expect(again.get('000000000000000000000002')).toBe(Date.UTC(1969, 11, 31, 23, 59, 59, 999));
	});

	test('a memory saved before buckets (exact ids, one text) still loads, and is written again in buckets', () => {
		// written by the previous version of this file
		const ms = {
			unit: 'ms' as const,
			count: 3,
			data: 'AQPsp+/yvWCLyersgQT/opXDyaMBYwzEQRb2XBDBQKLOYsyXBAs6oL2vKN2aAAAAAAAAAAAAAAAB',
		};
		const text = { unit: 'ms' as const, count: 1, data: 'AgGAoNXt7mYKbm90LWhleC1pZA' };
		const day = { unit: 'day' as const, count: 1, data: 'AQGWxQJizJcECzqgva8o3Zo' };
		const loaded = new RecordMemory(ms, 'ms');
		expect(loaded.get('62cc97040b3aa0bdaf28dd9a')).toBe(Date.UTC(2026, 10, 24, 9, 0, 0, 1));
		expect(loaded.get('630cc44116f65c10c140a2ce')).toBe(Date.UTC(2022, 6, 11, 21, 32, 52, 598));
		expect(loaded.get('000000000000000000000001')).toBe(Date.UTC(2205, 0, 1));
		expect(loaded.pack()).toEqual({ unit: 'ms', count: 3, buckets: expect.any(Object) });
		expect(new RecordMemory(text, 'ms').get('not-hex-id')).toBe(Date.UTC(2026, 0, 1));
		// Renewal Notice Due's reminders were kept in days; they now count milliseconds
		const reminders = new RecordMemory(day, 'ms');
		expect(reminders.get('62cc97040b3aa0bdaf28dd9a')).toBe(Date.UTC(2026, 11, 24));
		expect(reminders.pack().unit).toBe('ms');
	});

	test('text it did not write is refused, not misread', () => {
		expect(() => new RecordMemory({ unit: 'ms', count: 1, data: 'not base64!' }, 'ms')).toThrow(
			/not readable/,
		);
		expect(() => new RecordMemory({ unit: 'ms', count: 1, data: 'AQE' }, 'ms')).toThrow(
			/cut short/,
		);
		for (const text of ['AQE', '1234', '12345', '1"345', 'zzzzz', '#####']) {
			const bad = { unit: 'ms' as const, count: 1, buckets: { [fingerprintOf('x').bucket]: text } };
			expect(() => new RecordMemory(bad, 'ms').get('x')).toThrow(/not readable|cut short/);
		}
	});
});

describe('RecordMemory', () => {
	const packed = memoryOf([['aaaaaaaaaaaaaaaaaaaaaaaa', 1000]]);

	test('reading or writing what is already there keeps the packed memory as it was', () => {
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
		const both = new RecordMemory(stored(memory.pack()), 'ms');
		expect([both.get('aaaaaaaaaaaaaaaaaaaaaaaa'), both.get('bbbbbbbbbbbbbbbbbbbbbbbb')]).toEqual([
			1000, 2000,
		]);
		both.forgetBefore(1500);
		const later = new RecordMemory(stored(both.pack()), 'ms');
		expect(later.get('aaaaaaaaaaaaaaaaaaaaaaaa')).toBeUndefined();
		expect(later.get('bbbbbbbbbbbbbbbbbbbbbbbb')).toBe(2000);
		expect(later.pack().count).toBe(1);
		expect(new RecordMemory(undefined, 'day').pack()).toEqual({
			unit: 'day',
			count: 0,
			buckets: {},
		});
	});
});
