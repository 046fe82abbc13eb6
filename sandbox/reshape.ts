import type { IncomingMessage } from 'node:http';
import { isPlainObject } from '../nodes/shared/schema/values';
import type { ReshapingFault } from './faults';
import { listPage, nextUrl, type Cursors } from './paging';
import type { Reply } from './problems';
import type { StoredRecord } from './store';

/**
 * Answers that say the same as the service's in another form, each of which a client must read
 * as the service means it: pages with fewer records than the limit, or none, and a `next` link
 * (service-api.md: the server may return fewer); records in another order than by id (the order
 * by id is inferred, not documented); `{"results": []}` where the list goes on (a gateway's
 * answer, not the service's); `"next": null` on the last page (another version's JSON); dates and
 * date-times written in other ISO 8601 forms.
 */

/** What reshaping an answer needs: links into the list, and a spelling picked at random. */
export interface ReshapeContext {
	req: IncomingMessage;
	url: URL;
	cursors: Cursors;
	pick: <T>(values: readonly T[]) => T;
}

const isListReply = (reply: Reply): boolean =>
	reply.status === 200 && isPlainObject(reply.body) && Array.isArray(reply.body.results);

/** `reply` as the fault `kind` makes it; an answer the kind does not apply to is left as it is. */
export function reshape(kind: ReshapingFault, reply: Reply, context: ReshapeContext): Reply {
	if (kind === 'dates') {
		return reply.body === undefined ? reply : { ...reply, body: respell(reply.body, context.pick) };
	}
	if (!isListReply(reply)) return reply;
	const { req, url, cursors } = context;
	const body = reply.body as { results: StoredRecord[]; next?: string };
	switch (kind) {
		case 'empty':
			// the same page again: the request's own cursor, or none for the first page
			return listPage([], nextUrl(req, url, url.searchParams.get('after') ?? undefined));
		case 'short': {
			if (body.results.length < 2) return reply;
			const kept = body.results.slice(0, Math.floor(body.results.length / 2));
			return listPage(kept, nextUrl(req, url, cursors.encode(kept[kept.length - 1].id)));
		}
		case 'unordered':
			return { ...reply, body: { ...body, results: [...body.results].reverse() } };
		case 'cutoff':
			return listPage([], undefined);
		case 'null-next':
			return body.next === undefined ? { ...reply, body: { ...body, next: null } } : reply;
	}
}

/**
 * Other ISO 8601 spellings of a date the service writes as `YYYY-MM-DDT00:00:00Z` (service-
 * behaviour.md §4), each naming the same calendar day: the day as written, whatever offset is
 * written with it; a form without a zone is on the service's clock, UTC.
 */
const DAY_SPELLINGS: ReadonlyArray<(day: string) => string> = [
	(day) => day,
	(day) => `${day}T00:00:00+01:00`,
	(day) => `${day}T00:00:00-05:00`,
	(day) => `${day}T00:00:00`,
	(day) => `${day}T00:00:00.000Z`,
];

/** `ms` as the wall time at `minutes` east of UTC, with that offset written out. */
function atOffset(ms: number, minutes: number): string {
	const wall = new Date(ms + minutes * 60_000).toISOString().slice(0, 23);
	const sign = minutes < 0 ? '-' : '+';
	const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
	return `${wall}${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
}

/** Other spellings of a date-time the service writes as `YYYY-MM-DDTHH:MM:SS.mmmZ`: the same instant. */
const INSTANT_SPELLINGS: ReadonlyArray<(ms: number) => string> = [
	(ms) => atOffset(ms, 120),
	(ms) => atOffset(ms, -210),
	// whole seconds without a fraction, others with microseconds
	(ms) =>
		new Date(ms)
			.toISOString()
			.replace(/\.(\d{3})Z$/, (_, milli: string) => (milli === '000' ? 'Z' : `.${milli}000Z`)),
	// no zone: the service's clock
	(ms) => new Date(ms).toISOString().slice(0, 23),
];

const SERVICE_DATE = /^\d{4}-\d{2}-\d{2}T00:00:00Z$/;
const SERVICE_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A body with every date (a field ending in `Date`) and date-time (`Dtm`) spelled another way. */
function respell(value: unknown, pick: ReshapeContext['pick']): unknown {
	if (Array.isArray(value)) return value.map((element) => respell(element, pick));
	if (!isPlainObject(value)) return value;
	const spelled: Record<string, unknown> = {};
	for (const [key, field] of Object.entries(value)) {
		if (typeof field === 'string' && key.endsWith('Date') && SERVICE_DATE.test(field))
			spelled[key] = pick(DAY_SPELLINGS)(field.slice(0, 10));
		else if (typeof field === 'string' && key.endsWith('Dtm') && SERVICE_DATE_TIME.test(field))
			spelled[key] = pick(INSTANT_SPELLINGS)(Date.parse(field));
		else spelled[key] = respell(field, pick);
	}
	return spelled;
}
