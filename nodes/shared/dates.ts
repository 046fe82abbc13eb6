import { DateTime } from 'luxon';
import { isCalendarDate } from './schema/values';

const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

function asIsoText(value: unknown): string | undefined {
	if (typeof value === 'string') return value.trim();
	if (value instanceof Date) return value.toISOString();
	if (DateTime.isDateTime(value)) return value.toISO() ?? undefined;
	return undefined;
}

/**
 * A date as the service wants it (`YYYY-MM-DD`) from what n8n's date picker or an expression
 * gives (`2024-05-01T00:00:00`, a luxon DateTime, a JavaScript Date, ...). A date, or midnight,
 * keeps the calendar date it is written with (the service itself writes dates as
 * `2024-05-01T00:00:00Z`); a luxon DateTime gives its own zone's date. An instant (a JavaScript
 * Date, or a time of day with a zone, as a Date becomes in n8n's parameters) gives its date in the
 * workflow's time zone: east of UTC, midnight is still the previous day in UTC. Anything else is
 * returned unchanged for validation to report.
 */
export function toServiceDate(value: unknown, timezone: string): unknown {
	if (value instanceof Date) {
		return Number.isNaN(value.getTime())
			? value
			: (DateTime.fromJSDate(value, { zone: timezone }).toISODate() ?? value);
	}
	const text = asIsoText(value);
	if (text === undefined || !/^\d{4}-\d{2}-\d{2}(T|$)/.test(text)) return value;
	if (!DateTime.isDateTime(value) && HAS_ZONE.test(text)) {
		const instant = DateTime.fromISO(text, { setZone: true });
		const midnight = instant.isValid && instant.toFormat('HH:mm:ss.SSS') === '00:00:00.000';
		if (instant.isValid && !midnight) return instant.setZone(timezone).toISODate() ?? value;
	}
	return text.slice(0, 10);
}

/**
 * A date-time with a time zone. n8n's date picker gives local times without a zone; they are
 * read in the workflow's time zone and sent in UTC.
 */
export function toServiceDateTime(value: unknown, timezone: string): unknown {
	const text = asIsoText(value);
	if (text === undefined || !/^\d{4}-\d{2}-\d{2}(T|$)/.test(text)) return value;
	const parsed = HAS_ZONE.test(text)
		? DateTime.fromISO(text, { setZone: true })
		: DateTime.fromISO(text, { zone: timezone });
	return parsed.isValid ? parsed.toUTC().toISO({ suppressMilliseconds: true }) : value;
}

/** The forms the service writes (service-behaviour.md §4), read without luxon: most values. */
const SERVICE_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const SERVICE_DAY = /^(\d{4}-\d{2}-\d{2})(T00:00:00(\.0+)?Z)?$/;

/** ISO 8601 text as the service means it: with the offset written, or on its clock (UTC) without one. */
function readServiceIso(text: string): DateTime | undefined {
	const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true });
	return parsed.isValid ? parsed : undefined;
}

/**
 * The instant (milliseconds since the epoch) a date-time the service sent names, whatever its ISO
 * 8601 spelling: the offset written counts, a time without one is on the service's clock (UTC,
 * never this machine's zone), a date is its midnight UTC. Undefined when it is none.
 */
export function serviceInstant(value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	if (SERVICE_INSTANT.test(value)) return Date.parse(value);
	return readServiceIso(value)?.toMillis();
}

/**
 * The calendar day (`YYYY-MM-DD`) a date the service sent names, whatever its ISO 8601 spelling:
 * the day written, whatever time or offset follows it (`2024-03-01T00:00:00+01:00` is 1 March,
 * as `2024-03-01` and the service's own `2024-03-01T00:00:00Z` are; in UTC it would be the last
 * day of February). Undefined when it is none.
 */
export function serviceDay(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const own = SERVICE_DAY.exec(value);
	if (own) return isCalendarDate(own[1]) ? own[1] : undefined;
	return readServiceIso(value)?.toISODate() ?? undefined;
}
