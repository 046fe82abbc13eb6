import { DateTime } from 'luxon';

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
