import { addDays, dueContracts, noticeDeadline } from '../../../nodes/StockroomTrigger/renewals';

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
