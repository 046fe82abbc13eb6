/** Checks for the value types the service defines, shared by node validation, filters and the sandbox. */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The form the service writes dates in: `YYYY-MM-DDT00:00:00Z` (optionally with zero milliseconds). */
const DATE_AS_MIDNIGHT = /^(\d{4}-\d{2}-\d{2})T00:00:00(?:\.0+)?Z$/;
const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@"<>()[\],;:]+@[^\s@"<>()[\],;:]+\.[^\s@"<>()[\],;:.]{2,}$/;
const URL_LIKE = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

function isRealDay(year: number, month: number, day: number): boolean {
	if (month < 1 || month > 12 || day < 1) return false;
	const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
	const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
	return day <= daysInMonth;
}

/** `YYYY-MM-DD` naming a day that exists (no 2021-02-30). */
export function isCalendarDate(value: string): boolean {
	const match = DATE.exec(value);
	return match !== null && isRealDay(+match[1], +match[2], +match[3]);
}

/** A date as requests may send it: `YYYY-MM-DD`, or the service's own `YYYY-MM-DDT00:00:00Z`. */
export function isDateValue(value: string): boolean {
	const midnight = DATE_AS_MIDNIGHT.exec(value);
	return isCalendarDate(midnight ? midnight[1] : value);
}

/** ISO 8601 date-time with a UTC designator or an offset, naming an instant that exists. */
export function isDateTime(value: string): boolean {
	const match = DATE_TIME.exec(value);
	if (!match || !isRealDay(+match[1], +match[2], +match[3])) return false;
	const [hour, minute, second] = [+match[4], +match[5], match[6] === undefined ? 0 : +match[6]];
	if (hour > 23 || minute > 59 || second > 59) return false;
	const zone = match[8];
	return zone === 'Z' || (+zone.slice(1, 3) <= 14 && +zone.slice(4, 6) <= 59);
}

/** Milliseconds since the epoch of a date (midnight UTC) or date-time; NaN when it is neither. */
export function toInstant(value: string): number {
	if (isCalendarDate(value)) return Date.parse(`${value}T00:00:00Z`);
	return isDateTime(value) ? Date.parse(value) : NaN;
}

/** The calendar date part (`YYYY-MM-DD`) of a date in either accepted form. */
export function toCalendarDate(value: string): string {
	return value.slice(0, 10);
}

export const isEmail = (value: string): boolean => EMAIL.test(value);

export const isHttpUrl = (value: string): boolean => URL_LIKE.test(value);

export const isFiniteNumber = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value);

/** A number written as text as JavaScript reads it ("16", " 1299.5 ", "1e3"); else undefined. */
export function plainNumber(text: string): number | undefined {
	const trimmed = text.trim();
	return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : undefined;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The one rule for "has a value": not undefined, null or an empty string, and a list or object
 * only when something in it has a value (`[]`, `{}` and `{"textValue": ""}` have none). The
 * filter's `pr`, Sync's comparisons and clears, validation of required fields and the sandbox's
 * storage all ask this.
 */
export function hasValue(value: unknown): boolean {
	if (value === undefined || value === null || value === '') return false;
	if (Array.isArray(value)) return value.some(hasValue);
	if (isPlainObject(value)) return Object.values(value).some(hasValue);
	return true;
}

/** How a value looks in a message: strings quoted, the rest as JSON, long values shortened. */
export function describeValue(value: unknown): string {
	if (value === undefined) return 'nothing';
	const shown =
		typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
	return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

function editDistance(a: string, b: string): number {
	const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		let diagonal = previous[0];
		previous[0] = i;
		for (let j = 1; j <= b.length; j++) {
			const above = previous[j];
			previous[j] = Math.min(
				previous[j] + 1,
				previous[j - 1] + 1,
				diagonal + (a[i - 1] === b[j - 1] ? 0 : 1),
			);
			diagonal = above;
		}
	}
	return previous[b.length];
}

function commonPrefixLength(a: string, b: string): number {
	let length = 0;
	while (length < a.length && a[length] === b[length]) length++;
	return length;
}

/** The closest candidate to a misspelt name, or undefined when nothing is close. */
export function closestMatch(name: string, candidates: Iterable<string>): string | undefined {
	const wanted = name.toLowerCase();
	let best: string | undefined;
	let bestDistance = Math.max(2, Math.floor(wanted.length / 3)) + 1;
	for (const candidate of candidates) {
		const lower = candidate.toLowerCase();
		const sharedPrefix = commonPrefixLength(wanted, lower);
		const distance =
			lower.startsWith(wanted) || wanted.startsWith(lower)
				? 1
				: Math.min(editDistance(wanted, lower), sharedPrefix >= 4 ? 2 : Infinity);
		if (distance < bestDistance) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return best;
}

/** " (did you mean 'x'?)" or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
	const match = closestMatch(name, candidates);
	return match ? ` (did you mean '${match}'?)` : '';
}
