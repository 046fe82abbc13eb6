import {
	forget,
	MAX_REMEMBERED,
	newChanges,
	windowStart,
} from '../../../nodes/StockroomTrigger/cursor';
import { addDays, dueContracts, noticeDeadline } from '../../../nodes/StockroomTrigger/renewals';

describe('trigger cursor arithmetic', () => {
	test('the window starts one lookback before the cursor; whole days for dates', () => {
		expect(windowStart('2024-03-01T10:00:00.000Z', 5 * 60_000, 'dateTime')).toBe(
			'2024-03-01T09:55:00.000Z',
		);
		expect(windowStart('2024-03-01T00:00:00Z', 86_400_000, 'date')).toBe('2024-02-29');
		expect(windowStart('2024-03-01', 0, 'date')).toBe('2024-03-01');
	});

	test('a change is an (id, value) pair: the same value is not new, a new value of the same record is', () => {
		const seen: Record<string, string> = { a: '2024-03-01T10:00:00Z' };
		const fresh = newChanges(
			[
				{ id: 'a', lastSyncDtm: '2024-03-01T10:00:00.000Z' },
				{ id: 'b', lastSyncDtm: '2024-03-01T10:00:00Z' },
				{ id: 'a', lastSyncDtm: '2024-03-01T10:00:01Z' },
				{ id: 'c' },
			],
			'lastSyncDtm',
			seen,
		);
		expect(fresh.map((record) => record.id)).toEqual(['b', 'a']);
		expect(seen).toEqual({ a: '2024-03-01T10:00:01Z', b: '2024-03-01T10:00:00Z' });
	});

	test('remembered changes are forgotten once they leave the window, and bounded', () => {
		expect(
			forget(
				{ old: '2024-03-01T09:54:59Z', edge: '2024-03-01T09:55:00Z', now: '2024-03-01T10:00:00Z' },
				'2024-03-01T10:00:00Z',
				5 * 60_000,
				'dateTime',
			),
		).toEqual({
			edge: '2024-03-01T09:55:00Z',
			now: '2024-03-01T10:00:00Z',
		});
		const many = Object.fromEntries(
			Array.from({ length: MAX_REMEMBERED + 10 }, (_, i) => [
				`id${i}`,
				new Date(Date.UTC(2024, 2, 1, 10, 0, 0, i)).toISOString(),
			]),
		);
		const kept = forget(many, '2024-03-01T10:00:30Z', 60_000, 'dateTime');
		expect(Object.keys(kept)).toHaveLength(MAX_REMEMBERED);
		expect(kept.id0).toBeUndefined();
		expect(kept[`id${MAX_REMEMBERED + 9}`]).toBeDefined();
	});
});

describe('renewal notice arithmetic', () => {
	test('the deadline is the renewal date minus the notice days (none means the renewal date)', () => {
		expect(noticeDeadline({ renewalDate: '2025-03-01T00:00:00Z', terminationNoticeDays: 30 })).toBe(
			'2025-01-30',
		);
		expect(noticeDeadline({ renewalDate: '2024-03-31T00:00:00Z' })).toBe('2024-03-31');
		expect(noticeDeadline({})).toBeUndefined();
		expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
	});

	test('due contracts are those whose deadline is within the window, with the days left', () => {
		const due = dueContracts(
			[
				{ id: 'soon', renewalDate: '2024-07-01T00:00:00Z', terminationNoticeDays: 60 },
				{ id: 'late', renewalDate: '2024-12-01T00:00:00Z', terminationNoticeDays: 60 },
				{ id: 'passed', renewalDate: '2024-06-10T00:00:00Z', terminationNoticeDays: 30 },
			],
			{ today: '2024-06-01', withinDays: 14 },
		);
		expect(
			due.map((contract) => [
				contract.id,
				contract.noticeDeadline,
				contract.daysUntilNoticeDeadline,
			]),
		).toEqual([
			['soon', '2024-05-02', -30],
			['passed', '2024-05-11', -21],
		]);
	});
});
