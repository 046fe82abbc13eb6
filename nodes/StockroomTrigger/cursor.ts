import type { IDataObject } from 'n8n-workflow';

/**
 * Cursor arithmetic for "emit every change exactly once". A change is a pair (record id, value
 * of the watched field). Each poll reads every record whose value is at or after the window start
 * (cursor minus lookback), emits the pairs it has not emitted before, and moves the cursor to the
 * largest value emitted. Pairs are remembered while their value is inside the window, so ties on
 * the cursor and late writes inside the lookback are neither lost nor repeated.
 */

export type ValueKind = 'date' | 'dateTime';

export interface ChangeState {
	/** Which event and resource this state belongs to; another key means start afresh. */
	key: string;
	/** Largest value emitted so far (ISO string). */
	cursor: string;
	/** id → value of every change emitted whose value is still inside the window. */
	seen: Record<string, string>;
	/** A walk cut short by the poll budget: where to continue, and the largest value read so far. */
	resume?: { next: string; windowStart: string; largest: string };
}

/** How many remembered changes the state keeps at most; the oldest values go first. */
export const MAX_REMEMBERED = 20_000;

const DAY_MS = 86_400_000;

export const instant = (value: string): number =>
	Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);

/** An instant written the way filters on this kind of field expect it. */
export function formatValue(ms: number, kind: ValueKind): string {
	const iso = new Date(ms).toISOString();
	return kind === 'date' ? iso.slice(0, 10) : iso;
}

/** Where the window of the next read starts: the cursor minus the lookback (whole days for dates). */
export function windowStart(cursor: string, lookbackMs: number, kind: ValueKind): string {
	const start = instant(cursor) - lookbackMs;
	return formatValue(kind === 'date' ? Math.floor(start / DAY_MS) * DAY_MS : start, kind);
}

/** The watched field's value of a record, as an ISO string, or undefined when it has none. */
export function valueOf(record: IDataObject, field: string): string | undefined {
	const value = record[field];
	return typeof value === 'string' && !Number.isNaN(instant(value)) ? value : undefined;
}

/** The records of a page that are changes not emitted before, and the updated memory. */
export function newChanges(
	records: IDataObject[],
	field: string,
	seen: Record<string, string>,
): IDataObject[] {
	const fresh: IDataObject[] = [];
	for (const record of records) {
		const value = valueOf(record, field);
		const id = String(record.id);
		if (value === undefined || (seen[id] !== undefined && instant(seen[id]) === instant(value)))
			continue;
		seen[id] = value;
		fresh.push(record);
	}
	return fresh;
}

/** The larger of two ISO values (either may be missing). */
export function later(a: string | undefined, b: string | undefined): string | undefined {
	if (a === undefined) return b;
	if (b === undefined) return a;
	return instant(b) > instant(a) ? b : a;
}

/** Drops remembered changes that fell out of the window, and the oldest beyond the cap. */
export function forget(
	seen: Record<string, string>,
	cursor: string,
	lookbackMs: number,
	kind: ValueKind,
): Record<string, string> {
	const start = instant(windowStart(cursor, lookbackMs, kind));
	const kept = Object.entries(seen)
		.filter(([, value]) => instant(value) >= start)
		.sort(([, a], [, b]) => instant(b) - instant(a))
		.slice(0, MAX_REMEMBERED);
	return Object.fromEntries(kept);
}
