import { fromExportText, PLAIN_TEXT } from '../../../nodes/shared/sync/exportText';
import { boolean, date, number, text } from '../../../nodes/shared/schema/fields';

const amount = number('Amount');
const day = date('Start Date');

describe("an export's text read in its formats", () => {
	test('amounts with thousands separators and a currency sign or code, as the format says', () => {
		const dot = { numbers: 'dotDecimal', dates: 'iso' } as const;
		const comma = { numbers: 'commaDecimal', dates: 'iso' } as const;
		// written by hand: what a finance export writes and the number it means
		const read: Array<[string, typeof dot | typeof comma, unknown]> = [
			['1,234.50', dot, 1234.5],
			['$1,234.50', dot, 1234.5],
			['1,234.50 USD', dot, 1234.5],
			['EUR 12', dot, 12],
			[' 7 ', dot, 7],
			['1,234', dot, 1234],
			['1.234,50 €', comma, 1234.5],
			['1 234,5', comma, 1234.5],
			['1,234', comma, 1.234],
			['0,5', comma, 0.5],
		];
		for (const [given, format, expected] of read)
			expect([given, fromExportText(amount, given, format)]).toEqual([given, expected]);
		// what it cannot read is left for validation to name
		for (const [given, format] of [
			['1.234,50', dot],
			['1,234.50', comma],
			['12,34,56', dot],
			['twelve', dot],
			['usd 12', dot],
		] as const)
			expect([given, fromExportText(amount, given, format)]).toEqual([given, given]);
	});

	test('day-first and month-first dates; ISO dates and other fields left as they are', () => {
		expect(fromExportText(day, '03/04/2025', { numbers: 'dotDecimal', dates: 'dayFirst' })).toBe(
			'2025-04-03',
		);
		expect(fromExportText(day, '3.4.2025', { numbers: 'dotDecimal', dates: 'monthFirst' })).toBe(
			'2025-03-04',
		);
		expect(fromExportText(day, '03/04/2025', { numbers: 'dotDecimal', dates: 'iso' })).toBe(
			'03/04/2025',
		);
		expect(fromExportText(day, '2025-04-03', { numbers: 'dotDecimal', dates: 'dayFirst' })).toBe(
			'2025-04-03',
		);
		expect(fromExportText(text('Notes'), '1,234', { numbers: 'dotDecimal', dates: 'iso' })).toBe(
			'1,234',
		);
	});

	test('plain text, as the Asset Sync reads it: JavaScript numbers, yes and no', () => {
		expect(fromExportText(amount, '1234.5', PLAIN_TEXT)).toBe(1234.5);
		expect(fromExportText(amount, '1,234.5', PLAIN_TEXT)).toBe('1,234.5');
		expect(fromExportText(amount, '', PLAIN_TEXT)).toBe('');
		expect(fromExportText(boolean('Encrypted'), 'Yes', PLAIN_TEXT)).toBe(true);
		expect(fromExportText(boolean('Encrypted'), '0', PLAIN_TEXT)).toBe(false);
		expect(fromExportText(boolean('Encrypted'), 'maybe', PLAIN_TEXT)).toBe('maybe');
		expect(fromExportText(amount, 12, PLAIN_TEXT)).toBe(12);
	});
});
