import type { Field } from '../schema/fields';

/**
 * How an export writes numbers and dates as text. CSV exports give every cell as text: numbers
 * and yes/no values arrive as text, and finance exports write amounts with thousands separators
 * and a currency sign ("$1,234.50", "1.234,50 €") and dates in the exporter's locale
 * ("03/04/2025"), which only the export's format tells apart.
 */
export interface ExportFormats {
	/** `plain`: JavaScript numbers only; `dotDecimal`: 1,234.56; `commaDecimal`: 1.234,56. */
	numbers: 'plain' | 'dotDecimal' | 'commaDecimal';
	/** `iso`: YYYY-MM-DD; `dayFirst`: DD/MM/YYYY; `monthFirst`: MM/DD/YYYY (/, . or - between). */
	dates: 'iso' | 'dayFirst' | 'monthFirst';
}

export const PLAIN_TEXT: ExportFormats = { numbers: 'plain', dates: 'iso' };

/** A currency sign or code before or after an amount. */
const CURRENCY_MARK = /^(?:[A-Z]{3}|[$€£¥₹])\s*|\s*(?:[A-Z]{3}|[$€£¥₹])$/g;
const GROUPED = {
	dotDecimal: /^[+-]?(?:\d{1,3}(?:[,\s'’]\d{3})+|\d+)(?:\.\d+)?$/,
	commaDecimal: /^[+-]?(?:\d{1,3}(?:[.\s'’]\d{3})+|\d+)(?:,\d+)?$/,
};
const LOCAL_DATE = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/;

function number(text: string, format: ExportFormats['numbers']): number | undefined {
	if (format === 'plain')
		return text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
	const bare = text.replace(CURRENCY_MARK, '').replace(/\u00a0/g, ' ');
	if (!GROUPED[format].test(bare)) return undefined;
	const digits =
		format === 'dotDecimal'
			? bare.replace(/[,\s'’]/g, '')
			: bare.replace(/[.\s'’]/g, '').replace(',', '.');
	return Number(digits);
}

/** A day-first or month-first date as YYYY-MM-DD (checked as a calendar date later). */
function date(text: string, format: ExportFormats['dates']): string | undefined {
	const match = format === 'iso' ? null : LOCAL_DATE.exec(text);
	if (!match) return undefined;
	const [day, month] = format === 'dayFirst' ? [match[1], match[2]] : [match[2], match[1]];
	return `${match[3]}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
}

/**
 * A text from an export in the type the field needs, read in the export's formats. Anything it
 * cannot read is left as it is, for validation to name the field and what it expects.
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
			if (/^(true|yes|1)$/i.test(text)) return true;
			if (/^(false|no|0)$/i.test(text)) return false;
			return value;
		case 'date':
			return date(text, formats.dates) ?? value;
		default:
			return value;
	}
}
