import type { IncomingMessage } from 'node:http';
import { isCalendarDate, isDateTime } from '../nodes/shared/schema/values';
import type { Clock } from './clock';
import { badInput, JSON_TYPE, type Reply } from './problems';
import { isRecordId, type RecordTable, type StoredRecord } from './store';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

type Predicate = (record: StoredRecord) => boolean;

/** Paging and time-window parameters of a list call (service-behaviour.md §2). */
export interface ListWindow {
	limit: number;
	/** Id of the last record of the previous page. */
	after?: string;
	/** Inclusive bounds on `lastModifiedDtm`, as ISO strings with milliseconds. */
	since?: string;
	until?: string;
}

/**
 * The `after` cursors of next links: the last id of a page and, while a lifetime is set, when the
 * link was issued (record clock). An older cursor is then refused, as a service that keeps cursors
 * for a while refuses a link resumed too late (the spec calls `after` opaque). Without a lifetime
 * a cursor is the id alone, so the same page always links the same way.
 */
export class Cursors {
	constructor(
		private readonly clock: Clock,
		/** Seconds a cursor stays valid; undefined: for ever. */
		public ttlSeconds?: number,
	) {}

	encode(id: string): string {
		const text = this.ttlSeconds === undefined ? id : `${id}.${this.clock.now().getTime()}`;
		return Buffer.from(text, 'latin1').toString('base64url');
	}

	/** The id a cursor carries; throws a 400 naming `after` when it is not one or has expired. */
	decode(text: string): string {
		const [id, issued] = (
			/^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url').toString('latin1') : ''
		).split('.');
		if (!isRecordId(id) || (issued !== undefined && !/^\d+$/.test(issued))) {
			throw badInput(
				'after',
				'is not a cursor this service issued; use the next link of the previous page',
			);
		}
		// a cursor issued while no lifetime was set has no time: it is as old as can be
		const age = this.clock.now().getTime() - Number(issued ?? -Infinity);
		if (this.ttlSeconds !== undefined && age > this.ttlSeconds * 1000) {
			throw badInput(
				'after',
				`has expired (cursors last ${this.ttlSeconds} s); list again from the first page`,
			);
		}
		return id;
	}
}

function parseBound(query: URLSearchParams, name: 'since' | 'until'): string | undefined {
	const text = query.get(name);
	if (text === null || text === '') return undefined;
	if (!isDateTime(text) && !isCalendarDate(text)) {
		throw badInput(name, `expected an ISO 8601 date-time like 2024-05-01T10:30:00Z, got "${text}"`);
	}
	return new Date(isCalendarDate(text) ? `${text}T00:00:00Z` : text).toISOString();
}

/** Reads `limit`, `after`, `since` and `until`; throws a 400 naming a bad one. */
export function parseWindow(query: URLSearchParams, cursors: Cursors): ListWindow {
	const limitText = query.get('limit');
	let limit = DEFAULT_LIMIT;
	if (limitText !== null) {
		if (!/^\s*\d+\s*$/.test(limitText) || Number(limitText) < 1) {
			throw badInput('limit', `expected a whole number from 1 to ${MAX_LIMIT}, got "${limitText}"`);
		}
		limit = Math.min(Number(limitText), MAX_LIMIT);
	}
	const afterText = query.get('after');
	const after = afterText === null || afterText === '' ? undefined : cursors.decode(afterText);
	return { limit, after, since: parseBound(query, 'since'), until: parseBound(query, 'until') };
}

/** Keeps records modified within the window's inclusive bounds. */
export function withinWindow(window: ListWindow): Predicate | undefined {
	const { since, until } = window;
	if (since === undefined && until === undefined) return undefined;
	return (record) => {
		const modified = record.lastModifiedDtm;
		if (typeof modified !== 'string') return false;
		return (since === undefined || modified >= since) && (until === undefined || modified <= until);
	};
}

/** Lower-cased search text per record; stored records are never mutated, so it stays valid. */
const searchTexts = new WeakMap<StoredRecord, string>();

/** Case-insensitive free text (`q`) over the strings `texts` picks from a record. */
export function freeText(
	q: string | null,
	texts: (record: StoredRecord) => unknown[],
): Predicate | undefined {
	if (q === null || q.trim() === '') return undefined;
	const wanted = q.trim().toLowerCase();
	return (record) => {
		let haystack = searchTexts.get(record);
		if (haystack === undefined) {
			haystack = texts(record)
				.filter((text) => typeof text === 'string')
				.join('\n')
				.toLowerCase();
			searchTexts.set(record, haystack);
		}
		return haystack.includes(wanted);
	};
}

/** One page of records in id order from the cursor; stops once it knows the page is full. */
export function pageOf(
	table: Pick<RecordTable, 'all' | 'indexAfter'>,
	window: ListWindow,
	predicates: ReadonlyArray<Predicate | undefined>,
): { results: StoredRecord[]; lastId?: string } {
	const tests = predicates.filter((test): test is Predicate => test !== undefined);
	const records = table.all();
	const results: StoredRecord[] = [];
	for (
		let i = window.after === undefined ? 0 : table.indexAfter(window.after);
		i < records.length;
		i++
	) {
		const record = records[i];
		if (!tests.every((test) => test(record))) continue;
		// one match beyond the page means there is a next page (never an empty last page)
		if (results.length === window.limit) return { results, lastId: results[results.length - 1].id };
		results.push(record);
	}
	return { results };
}

/** The absolute URL of a page: the request's own URL with `after` set to `cursor` (none: left out). */
export function nextUrl(req: IncomingMessage, url: URL, cursor: string | undefined): string {
	const forwarded = req.headers['x-forwarded-proto'];
	const proto =
		(Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0].trim() || 'http';
	const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
	// behind a gateway that serves the service under a path (https://gw.example.com/stockroom)
	const prefix = String(req.headers['x-forwarded-prefix'] ?? '').replace(/\/+$/, '');
	const query = new URLSearchParams(url.search);
	if (cursor === undefined) query.delete('after');
	else query.set('after', cursor);
	return `${proto}://${host}${prefix}${url.pathname}?${query}`;
}

/** `{results, next}` with the `Link` header; without `next` (and the header) when there is none. */
export function listPage(results: readonly StoredRecord[], next: string | undefined): Reply {
	if (next === undefined) return { status: 200, body: { results }, contentType: JSON_TYPE };
	return {
		status: 200,
		body: { results, next },
		contentType: JSON_TYPE,
		headers: { Link: `<${next}>; rel="next"` },
	};
}

/** A page of the list; no `next` on the last page. */
export function listReply(
	req: IncomingMessage,
	url: URL,
	page: { results: StoredRecord[]; lastId?: string },
	cursors: Cursors,
): Reply {
	return listPage(
		page.results,
		page.lastId === undefined ? undefined : nextUrl(req, url, cursors.encode(page.lastId)),
	);
}
