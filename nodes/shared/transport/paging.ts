import type { IDataObject } from 'n8n-workflow';
import { readAnswer } from './answers';
import { resolveCall } from './baseUrl';
import { readFailure } from './failure';
import type { RetryPolicy } from './retry';
import {
	Abandonment,
	send,
	type Call,
	type Exchange,
	type RequestContext,
	type RequestOptions,
} from './send';
import { parseListBody } from './listBody';
import { isBodyStream, nextLinkOf, PageBuffer, readBytes } from './stream';

export interface ListOptions {
	operation: string;
	/** Stop after this many records; undefined reads every page. */
	limit?: number;
	/** Stop after this many pages, each given whole (instead of `limit`). */
	maxPages?: number;
	/** Records per request (the service allows up to 1000). */
	pageSize?: number;
	itemIndex?: number;
	retry?: RetryPolicy;
	/** Called before each further page; return false to stop early (e.g. a poll's time budget). */
	shouldContinue?: () => boolean;
}

export const MAX_PAGE_SIZE = 1000;

/** One page of a list; `next` is the link to the following page, when there is one. */
export interface ListPage {
	records: IDataObject[];
	next?: string;
	/** When the service answered, by its own clock (the `Date` header, whole seconds), if it said. */
	answeredAt?: number;
}

/** The instant in an HTTP `Date` header, when there is a readable one. */
export function headerDate(headers: IDataObject): number | undefined {
	const value = headers.date;
	const at = typeof value === 'string' ? Date.parse(value) : NaN;
	return Number.isNaN(at) ? undefined : at;
}

interface ListBody {
	results: IDataObject[];
	next?: string | null;
}

/** A page request whose headers have arrived; its body is read when the page's turn comes. */
class PageRequest {
	private readonly abandonment: Abandonment;
	/** Settles when the headers arrive; never an unhandled rejection, even if never awaited. */
	private readonly opened: Promise<Exchange & { call: Call }>;

	constructor(
		private readonly context: RequestContext,
		pathOrUrl: string,
		options: RequestOptions,
		/** The walk's: its pages are read one after the other, each parsed before the next. */
		private readonly pageBuffer: PageBuffer,
	) {
		this.abandonment = new Abandonment(context);
		this.opened = resolveCall(context, 'GET', pathOrUrl, options).then(async (call) => ({
			call,
			...(await send(context, call, { stream: true, abandonment: this.abandonment })),
		}));
		this.opened.catch(() => undefined);
	}

	/** The `Link` header's next page, as soon as the headers are in. */
	async nextLink(): Promise<string | undefined> {
		return nextLinkOf((await this.opened).headers);
	}

	/**
	 * The page: its body read and checked. A body cut on the way, or one that is not a list of
	 * records, is asked for again (waiting as for any retried call, the attempts counted on).
	 */
	async read(): Promise<{ body: ListBody; headers: IDataObject }> {
		try {
			const { call, headers, statusCode, body: stream, attempts } = await this.opened;
			let answer: ReturnType<typeof readAnswer>;
			try {
				const raw = isBodyStream(stream)
					? parseListBody(await readBytes(stream, this.pageBuffer))
					: stream;
				answer = readAnswer('list', statusCode, headers, raw);
			} catch (error) {
				answer = { failure: readFailure(error, Date.now()) };
			}
			if (!answer.failure) return { body: answer.body as unknown as ListBody, headers };
			const again = await send(this.context, call, {
				abandonment: this.abandonment,
				after: { attempts, failure: answer.failure },
			});
			return { body: again.body as ListBody, headers: again.headers };
		} finally {
			this.abandonment.release();
		}
	}

	/** Gives the page up: its request, retries and body are dropped. */
	abandon(): void {
		this.abandonment.abandon();
		this.opened.then(
			({ body }) => (isBodyStream(body) ? body.destroy() : undefined),
			() => undefined,
		);
	}
}

/**
 * Reads a list page by page, following the `next` link exactly as the service gives it (it
 * carries the filter and every other parameter); stops when there is no `next`, at `limit`
 * records or at `maxPages` pages. `path` may itself be a `next` link, to continue an earlier walk.
 * The following page is asked for as soon as a page's headers arrive (its `Link` header names
 * it), so the service prepares it while this page's body downloads and is read: one page ahead at
 * most, in order, each once. A page asked for ahead that is not needed after all (the limit was
 * reached, a page failed, the reader stopped) is abandoned: its request and retries end.
 */
export async function* paginate(
	this: RequestContext,
	path: string,
	qs: IDataObject | undefined,
	options: ListOptions,
): AsyncGenerator<ListPage> {
	const pageSize = Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	let remaining = options.limit ?? Infinity;
	let pagesLeft = options.maxPages ?? Infinity;
	/** The most records one page can bring: the `limit` of the first request, kept in every link. */
	const perPage = Math.min(pageSize, remaining);
	const request = (query?: IDataObject): RequestOptions => ({
		qs: query,
		operation: options.operation,
		answer: 'list',
		itemIndex: options.itemIndex,
		retry: options.retry,
	});
	const wantsMore = () =>
		remaining > perPage && pagesLeft > 1 && (!options.shouldContinue || options.shouldContinue());
	// the walk's pages are read one after the other, each into the same buffer
	const pageBuffer = new PageBuffer();
	const pageAt = (target: string, query?: IDataObject) =>
		new PageRequest(this, target, request(query), pageBuffer);
	let current: PageRequest | undefined = pageAt(path, qs && { ...qs, limit: perPage });
	let ahead: PageRequest | undefined;
	try {
		while (current) {
			const link = await current.nextLink();
			if (link !== undefined && wantsMore()) ahead = pageAt(link);
			const { body, headers }: { body: ListBody; headers: IDataObject } = await current.read();
			current = undefined;
			const records = body.results.slice(0, remaining);
			remaining -= records.length;
			pagesLeft--;
			const next: string | undefined = body.next || undefined;
			if (ahead && next !== link) {
				ahead.abandon();
				ahead = undefined;
			}
			yield { records, next, answeredAt: headerDate(headers) };
			if (next === undefined || remaining <= 0 || pagesLeft <= 0) return;
			if (options.shouldContinue && !options.shouldContinue()) return;
			current = ahead ?? pageAt(next);
			ahead = undefined;
		}
	} finally {
		current?.abandon();
		ahead?.abandon();
	}
}

/** Reads a SCIM list with `startIndex`/`count` until `totalResults` is reached. */
export async function* paginateScim(
	this: RequestContext,
	path: string,
	qs: IDataObject,
	options: ListOptions,
): AsyncGenerator<ListPage> {
	const pageSize = Math.min(options.pageSize ?? 100, MAX_PAGE_SIZE);
	let remaining = options.limit ?? Infinity;
	let startIndex = 1;
	while (remaining > 0) {
		const call = await resolveCall(this, 'GET', path, {
			qs: { ...qs, startIndex, count: Math.min(pageSize, remaining) },
			operation: options.operation,
			answer: 'users',
			itemIndex: options.itemIndex,
			retry: options.retry,
		});
		const page = (await send(this, call)).body as {
			Resources?: IDataObject[];
			totalResults: number;
		};
		const records = (page.Resources ?? []).slice(0, remaining);
		remaining -= records.length;
		yield { records };
		startIndex += records.length;
		if (!records.length || startIndex > page.totalResults) return;
		if (options.shouldContinue && !options.shouldContinue()) return;
	}
}

/** Collects a paginated list into one array. */
export async function collect(pages: AsyncGenerator<ListPage>): Promise<IDataObject[]> {
	const all: IDataObject[] = [];
	for await (const { records } of pages) {
		for (const record of records) all.push(record);
	}
	return all;
}
