import fc from 'fast-check';
import { serviceDay, serviceInstant } from '../../../nodes/shared/dates';
import { inTimeZone } from '../../helpers/timeZone';

// expected answers written by hand from service-behaviour.md §4: a date is a calendar day (the
// service writes `YYYY-MM-DDT00:00:00Z`), a date-time an instant on the service's clock (UTC)

describe('a date the service sent, by the day it names', () => {
	test.each([
		["the service's own form", '2024-03-01T00:00:00Z'],
		['a plain date', '2024-03-01'],
		['with milliseconds', '2024-03-01T00:00:00.000Z'],
		['midnight east of UTC (the last day of February in UTC)', '2024-03-01T00:00:00+01:00'],
		['midnight west of UTC', '2024-03-01T00:00:00-05:00'],
		['no zone', '2024-03-01T00:00:00'],
		['a time late in the day, far west', '2024-03-01T23:30:00-08:00'],
		['the basic format', '20240301T000000+0100'],
	])('%s: %s is 1 March 2024', (_, value) => {
		expect(serviceDay(value)).toBe('2024-03-01');
	});

	test('without a zone it is the day written, whatever the zone of this machine', async () => {
		await inTimeZone('Pacific/Kiritimati', () => {
			expect(serviceDay('2024-03-01T00:00:00')).toBe('2024-03-01');
			expect(serviceDay('2024-03-01T23:59:59')).toBe('2024-03-01');
		});
	});

	test.each([['2024-02-30'], ['2024-02-30T00:00:00Z'], ['1 March 2024'], [''], [20240301], [null]])(
		'%j is no date',
		(value) => {
			expect(serviceDay(value)).toBeUndefined();
		},
	);
});

describe('a date-time the service sent, by the instant it names', () => {
	const instant = Date.UTC(2024, 2, 1, 10, 0, 0, 123);
	test.each([
		["the service's own form", '2024-03-01T10:00:00.123Z'],
		['two hours east', '2024-03-01T12:00:00.123+02:00'],
		['three and a half hours west', '2024-03-01T06:30:00.123-03:30'],
		['microseconds', '2024-03-01T10:00:00.123000Z'],
		["no zone: the service's clock", '2024-03-01T10:00:00.123'],
	])('%s: %s', (_, value) => {
		expect(serviceInstant(value)).toBe(instant);
	});

	test('without a zone it is UTC, whatever the zone of this machine', async () => {
		await inTimeZone('Asia/Kathmandu', () => {
			expect(serviceInstant('2024-03-01T10:00:00.123')).toBe(instant);
		});
	});

	test('whole seconds and dates', () => {
		expect(serviceInstant('2024-03-01T10:00:00Z')).toBe(Date.UTC(2024, 2, 1, 10));
		expect(serviceInstant('2024-03-01')).toBe(Date.UTC(2024, 2, 1));
		expect(serviceInstant('soon')).toBeUndefined();
		expect(serviceInstant(undefined)).toBeUndefined();
	});

	test('any instant, written at any whole-minute offset, is read back to the millisecond', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2300, 0, 1) }),
				fc.integer({ min: -14 * 60, max: 14 * 60 }),
				(ms, minutes) => {
					const wall = new Date(ms + minutes * 60_000).toISOString().slice(0, 23);
					const offset = `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
					expect(serviceInstant(`${wall}${offset}`)).toBe(ms);
				},
			),
			{ numRuns: 500 },
		);
	});
});
