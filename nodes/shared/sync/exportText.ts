import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import type { Field } from '../schema/fields';
import { didYouMean, isCalendarDate, plainNumber } from '../schema/values';
import { SyncRefusal } from './refusal';

/**
 * How an export writes numbers and dates as text. CSV exports give every cell as text: numbers
 * and yes/no values arrive as text, finance exports write amounts with thousands separators and a
 * currency sign ("$1,234.50", "1.234,50 €"), and dates come in the exporter's locale
 * ("03/04/2025", which only the export's format tells apart) and device-management exports write
 * date-times without a zone ("2026-11-25 08:14:00.0000000", "11/25/2026 8:14:00 AM").
 */
export interface ExportFormats {
	/** `plain`: JavaScript numbers only; `dotDecimal`: 1,234.56; `commaDecimal`: 1.234,56. */
	numbers: 'plain' | 'dotDecimal' | 'commaDecimal';
	/**
	 * The order of day and month in a date written with the year last (/, . or - between):
	 * `iso` reads none (YYYY-MM-DD only), `dayFirst` DD/MM/YYYY, `monthFirst` MM/DD/YYYY. A date
	 * written year first is read under any.
	 */
	dates: 'iso' | 'dayFirst' | 'monthFirst';
	/** The IANA time zone of a date-time written without one. */
	zone: string;
}

export const PLAIN_TEXT: ExportFormats = { numbers: 'plain', dates: 'iso', zone: 'UTC' };

/** The Date Format option's names, as messages quote them. */
const DATE_FORMAT_NAMES: Record<ExportFormats['dates'], string> = {
	iso: 'YYYY-MM-DD',
	dayFirst: 'DD/MM/YYYY (Day First)',
	monthFirst: 'MM/DD/YYYY (Month First)',
};
const ZONE_OPTION = 'Timezone of Dates Without One';

/** The Date Format option, the same on every Sync. */
export const dateFormatOption: INodeProperties = {
	displayName: 'Date Format',
	name: 'dateFormat',
	type: 'options',
	options: [
		{ name: DATE_FORMAT_NAMES.iso, value: 'iso' },
		{ name: DATE_FORMAT_NAMES.dayFirst, value: 'dayFirst' },
		{ name: DATE_FORMAT_NAMES.monthFirst, value: 'monthFirst' },
	],
	default: 'iso',
	description:
		"The order of day and month in the export's dates and date-times written with the year last (/, . or - between): 03/04/2025 is 3 April day first and 4 March month first. Year first (2025-04-03, 2025-04-03 08:14:00) is read under any. A column holding a date this order cannot have (31/01/2025 month first) stops the run rather than read its other dates with day and month swapped.",
};

/** The zone of date-times written without one (Sync of records that have date-times). */
export const timezoneOption: INodeProperties = {
	displayName: ZONE_OPTION,
	name: 'timezone',
	type: 'string',
	default: '',
	placeholder: 'e.g. Europe/Berlin',
	description:
		"The IANA time zone (Europe/Berlin, America/New_York, UTC) of the export's date-times written without one, as Intune, Jamf and Configuration Manager write them. Empty: the workflow's timezone.",
};

/**
 * The export's formats as the node's options give them: Date Format, Number Format (when the
 * Sync has it; otherwise `numbers`), the zone (the workflow's when not given). A zone that is no
 * IANA time zone stops the run, naming the option.
 */
export function readExportFormats(
	node: INode,
	options: IDataObject,
	fallback: { numbers: ExportFormats['numbers']; zone: string },
): ExportFormats {
	const { numberFormat, dateFormat, timezone } = options;
	const given = typeof timezone === 'string' ? timezone.trim() : (timezone ?? '');
	if (given !== '' && !(typeof given === 'string' && validZone(given))) {
		const zones = [...Intl.supportedValuesOf('timeZone'), 'UTC'];
		throw new SyncRefusal(
			node,
			'settings',
			`${ZONE_OPTION}: ${JSON.stringify(given)} is not a time zone${didYouMean(String(given), zones)}`,
			"Nothing was written. Give an IANA time zone such as Europe/Berlin, America/New_York or UTC, or leave the option empty for the workflow's timezone.",
		);
	}
	return {
		numbers:
			numberFormat === 'dotDecimal' || numberFormat === 'commaDecimal'
				? numberFormat
				: fallback.numbers,
		dates: dateFormat === 'dayFirst' || dateFormat === 'monthFirst' ? dateFormat : 'iso',
		zone: typeof given === 'string' && given !== '' ? given : fallback.zone,
	};
}

/** A zone name luxon reads as an IANA zone (case aside, as Intl reads it). */
const validZone = (name: string) => IANAZone.isValidZone(name);

/** A currency sign or code before or after an amount. */
const CURRENCY_MARK = /^(?:[A-Z]{3}|[$€£¥₹])\s*|\s*(?:[A-Z]{3}|[$€£¥₹])$/g;
const GROUPED = {
	dotDecimal: /^[+-]?(?:\d{1,3}(?:[,\s'’]\d{3})+|\d+)(?:\.\d+)?$/,
	commaDecimal: /^[+-]?(?:\d{1,3}(?:[.\s'’]\d{3})+|\d+)(?:,\d+)?$/,
};
const NUMBER_FORMAT_NAMES = { dotDecimal: '1,234.56', commaDecimal: '1.234,56' };

function number(text: string, format: ExportFormats['numbers']): number | undefined {
	if (format === 'plain') return plainNumber(text);
	const bare = text.replace(CURRENCY_MARK, '').replace(/\u00a0/g, ' ');
	if (!GROUPED[format].test(bare)) return undefined;
	const digits =
		format === 'dotDecimal'
			? bare.replace(/[,\s'’]/g, '')
			: bare.replace(/[.\s'’]/g, '').replace(',', '.');
	return Number(digits);
}

/**
 * Yes/no words read, case aside: English, German, French, Spanish, Dutch, Italian and Portuguese,
 * and a checkbox column's marks. An empty cell is no answer (it clears), not no.
 */
const YES = [
	...['yes', 'y', 'true', '1', 'ja', 'wahr', 'oui', 'vrai', 'sí', 'si', 'verdadero'],
	...['sì', 'sim', 'x', '✓', '✔'],
];
const NO = [
	...['no', 'n', 'false', '0', 'nein', 'falsch', 'non', 'faux', 'falso', 'nee'],
	...['não', 'nao', '✗', '✘'],
];
const BOOLEAN_WORDS = new Map<string, boolean>([
	...YES.map((word) => [word, true] as const),
	...NO.map((word) => [word, false] as const),
]);

function yesNo(text: string): boolean | undefined {
	return BOOLEAN_WORDS.get(text.normalize('NFC').toLowerCase());
}

/**
 * A date or date-time as exports write it: year first (`2026-11-25`, `2026-11-25T08:14:00Z`,
 * Intune's `2026-11-25 08:14:00.0000000`, Jamf's `2026-11-25 08:14:32` and `2026-11-25 at 8:14
 * AM`) or year last, day and month in the export's order (Configuration Manager's `11/25/2026
 * 8:14:00 AM`); a time with or without seconds, a fraction, AM/PM and a zone.
 */
const DATE_TEXT = new RegExp(
	[
		'^(?:(\\d{4})[-/.](\\d{1,2})[-/.](\\d{1,2})|(\\d{1,2})[-/.](\\d{1,2})[-/.](\\d{4}))',
		'(?:(?:T|\\s+at\\s+|,?\\s+)(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:[.,](\\d{1,9}))?)?',
		'(?:\\s*([ap])\\.?\\s?m\\.?)?',
		'(?:\\s*(Z|UTC|GMT|[+-]\\d{2}(?::?\\d{2})?))?)?$',
	].join(''),
	'i',
);

/** A date-time's parts as written; `first` and `second` are month and day when `local` is not. */
interface Written {
	year: number;
	first: number;
	second: number;
	/** Written year last: which of `first` and `second` is the day, the Date Format says. */
	local: boolean;
	time?: { hour: number; minute: number; second: number; fraction: string; half?: 'a' | 'p' };
	/** Minutes east of UTC, when a zone is written. */
	offset?: number;
}

function written(text: string): Written | undefined {
	const match = DATE_TEXT.exec(text);
	if (!match) return undefined;
	const [, y, m, d, a, b, yy, hour, minute, second, fraction, half, zone] = match;
	const local = y === undefined;
	const parts: Written = local
		? { year: +yy, first: +a, second: +b, local }
		: { year: +y, first: +m, second: +d, local };
	if (hour !== undefined)
		parts.time = {
			hour: +hour,
			minute: +minute,
			second: second === undefined ? 0 : +second,
			fraction: fraction ?? '',
			half: half?.toLowerCase() as 'a' | 'p' | undefined,
		};
	if (zone !== undefined) {
		const offset = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
		parts.offset = offset
			? (offset[1] === '-' ? -1 : 1) * (+offset[2] * 60 + +(offset[3] ?? 0))
			: 0;
	}
	return parts;
}

/** Year, month and day in the order given; undefined for a year-last date under YYYY-MM-DD. */
function dayParts(
	parts: Written,
	order: ExportFormats['dates'],
): [number, number, number] | undefined {
	if (!parts.local) return [parts.year, parts.first, parts.second];
	if (order === 'iso') return undefined;
	return order === 'dayFirst'
		? [parts.year, parts.second, parts.first]
		: [parts.year, parts.first, parts.second];
}

const pad = (n: number) => String(n).padStart(2, '0');
const isoDay = ([year, month, day]: [number, number, number]) =>
	`${year}-${pad(month)}-${pad(day)}`;

/** The time of day on a 24-hour clock, or undefined when there is no such time. */
function clock(parts: Written) {
	const time = parts.time ?? { hour: 0, minute: 0, second: 0, fraction: '' };
	let { hour } = time;
	if (time.half) {
		if (hour < 1 || hour > 12) return undefined;
		hour = (hour % 12) + (time.half === 'p' ? 12 : 0);
	}
	if (hour > 23 || time.minute > 59 || time.second > 59) return undefined;
	// the fraction to the millisecond, cut (Intune writes seven digits)
	const millisecond = Number(`${time.fraction}000`.slice(0, 3));
	return { hour, minute: time.minute, second: time.second, millisecond };
}

/**
 * A date or date-time text in the form the service takes: a date as YYYY-MM-DD (the day written,
 * whatever time follows it; one with its zone written is left as ISO 8601 for the caller's
 * normalization to take its day), a date-time as ISO 8601 in UTC with milliseconds, read in the
 * export's zone when it writes none. Undefined when the text is not one, or names no such day.
 */
function dateText(
	text: string,
	type: 'date' | 'dateTime',
	formats: ExportFormats,
): string | undefined {
	const parts = written(text);
	const day = parts && dayParts(parts, formats.dates);
	if (!parts || !day || !isCalendarDate(isoDay(day))) return undefined;
	const time = clock(parts);
	if (!time) return undefined;
	if (type === 'date' && (parts.offset === undefined || !parts.time)) return isoDay(day);
	const zone: Zone | string =
		parts.offset === undefined ? formats.zone : FixedOffsetZone.instance(parts.offset);
	const at = DateTime.fromObject({ year: day[0], month: day[1], day: day[2], ...time }, { zone });
	if (!at.isValid) return undefined;
	return (type === 'date' ? at.toISO() : at.toUTC().toISO()) ?? undefined;
}

/** n8n's own ISO 8601 date forms, which the dates' normalization reads for a date field. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T|$)/;

/**
 * A text from an export in the type the field needs, read in the export's formats. Anything it
 * cannot read is left as it is, for validation to name the field and quote the value as the
 * export wrote it (never rearranged).
 */
export function fromExportText(
	field: Field | undefined,
	value: unknown,
	formats: ExportFormats,
): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	switch (field?.type) {
		case 'number':
			return number(text, formats.numbers) ?? value;
		case 'boolean':
			return yesNo(text) ?? value;
		case 'date':
			return ISO_DATE.test(text) ? value : (dateText(text, 'date', formats) ?? value);
		case 'dateTime':
			return dateText(text, 'dateTime', formats) ?? value;
		default:
			return value;
	}
}

const READ_AS =
	'2026-11-25T08:14:00Z, 2026-11-25 08:14:00, 2026-11-25 at 8:14 AM, and 11/25/2026 8:14:00 AM in the order of the Date Format';

/**
 * What to say after a validation issue about a value the export wrote that was not read: set the
 * Date Format or the Number Format, no such day, the yes/no words read. Empty when the value was
 * read (the issue is about something else) or there is nothing to add.
 */
export function unreadHint(field: Field | undefined, raw: unknown, formats: ExportFormats): string {
	if (typeof raw !== 'string' || !raw.trim() || fromExportText(field, raw, formats) !== raw)
		return '';
	const text = raw.trim();
	switch (field?.type) {
		case 'number': {
			if (formats.numbers === 'plain') return '';
			const other = formats.numbers === 'dotDecimal' ? 'commaDecimal' : 'dotDecimal';
			return number(text, other) === undefined
				? ''
				: ` (it reads as a number written ${NUMBER_FORMAT_NAMES[other]}: set the Number Format option)`;
		}
		case 'boolean':
			return ` (the words read, case aside, as yes: ${YES.join(', ')}; as no: ${NO.join(', ')})`;
		case 'date':
		case 'dateTime': {
			const parts = written(text);
			if (!parts) return field.type === 'dateTime' ? ` (date-times are read as ${READ_AS})` : '';
			const day = dayParts(parts, formats.dates);
			if (!day) return ' (a day-first or month-first date: set the Date Format option)';
			if (!isCalendarDate(isoDay(day))) {
				// validation says so of a date written year first
				if (field.type === 'date' && ISO_DATE.test(text.slice(0, 10))) return '';
				return ` (no such day${parts.local ? ` read as ${DATE_FORMAT_NAMES[formats.dates]}` : ''})`;
			}
			return clock(parts) ? '' : ' (no such time of day)';
		}
		default:
			return '';
	}
}

/**
 * Refuses the run when a date column holds a value that the Date Format cannot read and the other
 * day/month order can (31.01.2027 under MM/DD/YYYY): the export writes the other order, and the
 * column's other dates, those with a day of 12 or less (01.02.2026), would be read with day and
 * month swapped without a word. The column is refused whole, before anything is read or written.
 * A value no order reads is a row's error, not this. `column` names the column in the message.
 */
export function refuseSwappedDate(
	node: INode,
	column: string | (() => string),
	item: number,
	field: Field | undefined,
	raw: unknown,
	formats: ExportFormats,
): void {
	if (field?.type !== 'date' && field?.type !== 'dateTime') return;
	if (formats.dates === 'iso' || typeof raw !== 'string') return;
	const parts = written(raw.trim());
	if (!parts?.local || !clock(parts)) return;
	const chosen = dayParts(parts, formats.dates)!;
	const other = formats.dates === 'dayFirst' ? 'monthFirst' : 'dayFirst';
	const swapped = dayParts(parts, other)!;
	if (isCalendarDate(isoDay(chosen)) || !isCalendarDate(isoDay(swapped))) return;
	const month = formats.dates === 'dayFirst' ? parts.second : parts.first;
	throw new SyncRefusal(
		node,
		'columns',
		`Sync refused: ${typeof column === 'string' ? column : column()} is ${JSON.stringify(raw)} on item ${item}, which is no date under Date Format ${DATE_FORMAT_NAMES[formats.dates]}`,
		[
			`Nothing was written. Read ${formats.dates === 'dayFirst' ? 'day' : 'month'} first, ${JSON.stringify(raw)} has month ${month}; read ${other === 'dayFirst' ? 'day' : 'month'} first, it is ${isoDay(swapped)}.`,
			'The export writes the other order, so the dates of this column whose day is 12 or less would be read with day and month swapped: the whole column is refused rather than read row by row.',
			`Set the Date Format option to ${DATE_FORMAT_NAMES[other]}, or correct the value.`,
		].join('\n'),
	);
}
