import type { INode } from 'n8n-workflow';
import {
	fromExportText,
	PLAIN_TEXT,
	readExportFormats,
	refuseSwappedDate,
	unreadHint,
	type ExportFormats,
} from '../../../nodes/shared/sync/exportText';
import {
	boolean,
	date,
	dateTime,
	number,
	text,
	type Field,
} from '../../../nodes/shared/schema/fields';

const amount = number('Amount');
const day = date('Start Date');
const at = dateTime('Last Synced At');
const yes = boolean('Encrypted');
const node: INode = {
	id: 'sync',
	name: 'Sync',
	type: 'n8n-nodes-stockroom.stockroomAsset',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const formats = (
	dates: ExportFormats['dates'],
	zone = 'UTC',
	numbers: ExportFormats['numbers'] = 'dotDecimal',
): ExportFormats => ({ numbers, dates, zone });

describe("an export's text read in its formats", () => {
	test('amounts with thousands separators and a currency sign or code, as the format says', () => {
		const dot = formats('iso');
		const comma = formats('iso', 'UTC', 'commaDecimal');
		// written by hand: what a finance export writes and the number it means
		const read: Array<[string, ExportFormats, unknown]> = [
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
		] as Array<[string, ExportFormats]>)
			expect([given, fromExportText(amount, given, format)]).toEqual([given, given]);
	});

	test('day-first and month-first dates; ISO dates and other fields left as they are', () => {
		expect(fromExportText(day, '03/04/2025', formats('dayFirst'))).toBe('2025-04-03');
		expect(fromExportText(day, '3.4.2025', formats('monthFirst'))).toBe('2025-03-04');
		expect(fromExportText(day, '03/04/2025', formats('iso'))).toBe('03/04/2025');
		expect(fromExportText(day, '2025-04-03', formats('dayFirst'))).toBe('2025-04-03');
		expect(fromExportText(text('Notes'), '1,234', formats('iso'))).toBe('1,234');
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

	test('date-times as Intune, Jamf and Configuration Manager write them: in the zone given when they write none, as ISO 8601 in UTC', () => {
		const berlin = formats('monthFirst', 'Europe/Berlin');
		// written by hand: the export's text and the instant it means (Berlin is UTC+1 in
		// November, UTC+2 in July)
		const read: Array<[string, ExportFormats, string]> = [
			['2026-11-25 08:14:00.0000000', berlin, '2026-11-25T07:14:00.000Z'],
			['2026-11-25T08:14:00Z', berlin, '2026-11-25T08:14:00.000Z'],
			['2026-11-25T08:14:00.1234567Z', berlin, '2026-11-25T08:14:00.123Z'],
			['2026-11-25 08:14:32', berlin, '2026-11-25T07:14:32.000Z'],
			['2026-11-25 at 8:14 AM', berlin, '2026-11-25T07:14:00.000Z'],
			['2026-11-25 at 12:05 AM', berlin, '2026-11-24T23:05:00.000Z'],
			['2026-11-25 at 12:05 PM', berlin, '2026-11-25T11:05:00.000Z'],
			['11/25/2026 8:14:00 AM', berlin, '2026-11-25T07:14:00.000Z'],
			['11/25/2026 8:14:00 PM', berlin, '2026-11-25T19:14:00.000Z'],
			['2026-07-01 08:14:00', berlin, '2026-07-01T06:14:00.000Z'],
			['2026-11-25 08:14:00 +05:30', berlin, '2026-11-25T02:44:00.000Z'],
			['2026-11-25', berlin, '2026-11-24T23:00:00.000Z'],
			['25.11.2026 08:14', formats('dayFirst', 'Europe/Berlin'), '2026-11-25T07:14:00.000Z'],
			[
				'11/25/2026 8:14:00 AM',
				formats('monthFirst', 'America/New_York'),
				'2026-11-25T13:14:00.000Z',
			],
			[' 2026-11-25T08:14:00 ', formats('iso', 'UTC'), '2026-11-25T08:14:00.000Z'],
		];
		for (const [given, format, expected] of read)
			expect([given, fromExportText(at, given, format)]).toEqual([given, expected]);
		// what names no such time, or a year-last date under YYYY-MM-DD, is left as written
		for (const [given, format] of [
			['11/25/2026 8:14:00 AM', formats('iso')],
			['2026-11-25 25:00', berlin],
			['2026-11-25 at 13:00 PM', berlin],
			['2026-02-30 08:00', berlin],
			['yesterday', berlin],
		] as Array<[string, ExportFormats]>)
			expect([given, fromExportText(at, given, format)]).toEqual([given, given]);
	});

	test('dates: the day written, whatever time follows it; a date no order reads stays as the file has it, never rearranged', () => {
		expect(fromExportText(day, '11/25/2026 12:00:00 AM', formats('monthFirst'))).toBe('2026-11-25');
		expect(fromExportText(day, '2026-11-25 08:14:00', formats('iso'))).toBe('2026-11-25');
		expect(fromExportText(day, '31.01.2027', formats('dayFirst'))).toBe('2027-01-31');
		expect(fromExportText(day, '29.02.2028', formats('dayFirst'))).toBe('2028-02-29');
		// not "2027-31-01", not "2027-02-29"
		expect(fromExportText(day, '31.01.2027', formats('monthFirst'))).toBe('31.01.2027');
		expect(fromExportText(day, '29.02.2027', formats('dayFirst'))).toBe('29.02.2027');
		// n8n's own date forms are left to the dates' normalization, as before
		expect(fromExportText(day, '2026-11-25T00:00:00Z', formats('dayFirst'))).toBe(
			'2026-11-25T00:00:00Z',
		);
	});

	test('yes and no in the words exports write them, case aside; any other word is left as written', () => {
		const words: Array<[string, boolean]> = [
			['Ja', true],
			['JA', true],
			['wahr', true],
			['Oui', true],
			['VRAI', true],
			['sí', true],
			['Si', true],
			['verdadero', true],
			['sì', true],
			['Sim', true],
			['x', true],
			['✓', true],
			['Y', true],
			['TRUE', true],
			['1', true],
			[' yes ', true],
			['Nein', false],
			['falsch', false],
			['NON', false],
			['faux', false],
			['No', false],
			['falso', false],
			['nee', false],
			['Não', false],
			['nao', false],
			['n', false],
			['0', false],
			['False', false],
		];
		for (const [given, expected] of words)
			expect([given, fromExportText(yes, given, PLAIN_TEXT)]).toEqual([given, expected]);
		for (const given of ['Jein', 'maybe', '2', ''])
			expect(fromExportText(yes, given, PLAIN_TEXT)).toBe(given);
	});

	test('what a value not read hints: the option to set, no such day, the yes/no words read', () => {
		const comma = formats('iso', 'UTC', 'commaDecimal');
		expect(unreadHint(yes, 'Jein', PLAIN_TEXT)).toBe(
			' (the words read, case aside, as yes: yes, y, true, 1, ja, wahr, oui, vrai, sí, si, verdadero, sì, sim, x, ✓, ✔; as no: no, n, false, 0, nein, falsch, non, faux, falso, nee, não, nao, ✗, ✘)',
		);
		expect(unreadHint(amount, '$1,234.56', comma)).toBe(
			' (it reads as a number written 1,234.56: set the Number Format option)',
		);
		expect(unreadHint(amount, '1.234,56 €', formats('iso'))).toBe(
			' (it reads as a number written 1.234,56: set the Number Format option)',
		);
		expect(unreadHint(day, '15/01/2025', formats('iso'))).toBe(
			' (a day-first or month-first date: set the Date Format option)',
		);
		expect(unreadHint(day, '31/02/2027', formats('dayFirst'))).toBe(
			' (no such day read as DD/MM/YYYY (Day First))',
		);
		expect(unreadHint(at, 'yesterday', formats('iso'))).toBe(
			' (date-times are read as 2026-11-25T08:14:00Z, 2026-11-25 08:14:00, 2026-11-25 at 8:14 AM, and 11/25/2026 8:14:00 AM in the order of the Date Format)',
		);
		expect(unreadHint(at, '2026-11-25 25:00', formats('iso'))).toBe(' (no such time of day)');
		// a value read, or one no format reads, has nothing to add
		for (const [field, given, format] of [
			[yes, 'Ja', PLAIN_TEXT],
			[amount, '-5', comma],
			[amount, 'twelve', comma],
			[day, '', formats('iso')],
		] as const)
			expect(unreadHint(field, given, format)).toBe('');
	});

	test('a date only the other day/month order reads refuses its column, quoting it as the file has it', () => {
		const refusal = (raw: string, format: ExportFormats, field: Field = day) => {
			try {
				refuseSwappedDate(node, 'Purchased Date (purchasedDate)', 3, field, raw, format);
			} catch (error) {
				const { message, description } = error as Error & { description: string };
				return { message, description };
			}
			return undefined;
		};
		expect(refusal('31.01.2027', formats('monthFirst'))).toEqual({
			message:
				'Sync refused: Purchased Date (purchasedDate) is "31.01.2027" on item 3, which is no date under Date Format MM/DD/YYYY (Month First)',
			description: [
				'Nothing was written. Read month first, "31.01.2027" has month 31; read day first, it is 2027-01-31.',
				'The export writes the other order, so the dates of this column whose day is 12 or less would be read with day and month swapped: the whole column is refused rather than read row by row.',
				'Set the Date Format option to DD/MM/YYYY (Day First), or correct the value.',
			].join('\n'),
		});
		expect(refusal('11/25/2026 8:14:00 AM', formats('dayFirst'), at)?.message).toBe(
			'Sync refused: Purchased Date (purchasedDate) is "11/25/2026 8:14:00 AM" on item 3, which is no date under Date Format DD/MM/YYYY (Day First)',
		);
		// read under the order chosen; no order reads it; YYYY-MM-DD reads no such date; not a date
		expect(refusal('01.02.2026', formats('monthFirst'))).toBeUndefined();
		expect(refusal('32.01.2027', formats('monthFirst'))).toBeUndefined();
		expect(refusal('31.01.2027', formats('iso'))).toBeUndefined();
		expect(refusal('31.01.2027', formats('monthFirst'), text('Notes'))).toBeUndefined();
	});

	test("the options as the node gives them: the workflow's zone unless one is set; a zone that is none is refused, naming the option", () => {
		const fallback = { numbers: 'plain', zone: 'America/Chicago' } as const;
		expect(readExportFormats(node, {}, fallback)).toEqual({
			numbers: 'plain',
			dates: 'iso',
			zone: 'America/Chicago',
		});
		expect(
			readExportFormats(
				node,
				{ dateFormat: 'dayFirst', numberFormat: 'commaDecimal', timezone: ' Europe/Berlin ' },
				fallback,
			),
		).toEqual({ numbers: 'commaDecimal', dates: 'dayFirst', zone: 'Europe/Berlin' });
		expect(() => readExportFormats(node, { timezone: 'Europe/Berln' }, fallback)).toThrow(
			`Timezone of Dates Without One: "Europe/Berln" is not a time zone (did you mean 'Europe/Berlin'?)`,
		);
	});
});
