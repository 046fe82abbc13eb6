import { DateTime } from 'luxon';

import { toServiceDate } from '../../../nodes/shared/dates';

// expected answers written by hand: which calendar day the user meant
describe('a date field from what n8n gives', () => {
	test.each([
		['a date', '2024-06-01', 'Asia/Tokyo', '2024-06-01'],
		[
			"the service's own form round-trips, west of UTC too",
			'2024-06-01T00:00:00Z',
			'America/New_York',
			'2024-06-01',
		],
		['midnight with its own offset', '2024-06-01T00:00:00+09:00', 'UTC', '2024-06-01'],
		['the date picker (no zone)', '2024-06-01T10:00:00', 'Asia/Tokyo', '2024-06-01'],
		[
			'an instant (a Date as n8n writes it) in Tokyo',
			'2024-05-31T15:00:00.000Z',
			'Asia/Tokyo',
			'2024-06-01',
		],
		['the same instant in UTC', '2024-05-31T15:00:00.000Z', 'UTC', '2024-05-31'],
		['not a date', 'next Tuesday', 'UTC', 'next Tuesday'],
	])('%s: %s in %s is %s', (_, value, timezone, expected) => {
		expect(toServiceDate(value, timezone)).toBe(expected);
	});

	test('a JavaScript Date is the day it is in the workflow time zone', () => {
		const midnightInTokyo = new Date('2024-06-01T00:00:00+09:00');
		expect(toServiceDate(midnightInTokyo, 'Asia/Tokyo')).toBe('2024-06-01');
		expect(toServiceDate(midnightInTokyo, 'UTC')).toBe('2024-05-31');
		const invalid = new Date('not a date');
		expect(toServiceDate(invalid, 'UTC')).toBe(invalid);
	});

	test("a luxon DateTime keeps its own zone's day", () => {
		const tokyo = DateTime.fromISO('2024-06-01T00:00', { zone: 'Asia/Tokyo' });
		expect(toServiceDate(tokyo, 'UTC')).toBe('2024-06-01');
	});
});
