import { NodeOperationError, type IDataObject } from 'n8n-workflow';
import { readAnswer } from './answers';
import { resolveCall } from './baseUrl';
import type { RequestContext } from './credential';
import { readFailure } from './failure';
import type { RetryPolicy } from './retry';
import { Abandonment, send, type Call, type Exchange, type RequestOptions } from './send';
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
	/**
	 * A record may come again on a later page: a walk in modification order (the trigger's), where
	 * a record changed while it is read moves behind the cursor. Otherwise a repeated record stops
	 * the list (a next link whose cursor the service ignored).
	 */
	repeatsExpected?: boolean;
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
	const recent = new RecentIds();
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
			const repeated = options.repeatsExpected ? undefined : recent.repeatedIn(records);
			if (repeated) {
				throw new NodeOperationError(
					this.getNode(),
					`Could not ${options.operation}: the service answered the record ${repeated.id} ${repeated.where}`,
					{ itemIndex: options.itemIndex, description: REPEATED_PAGE_ADVICE },
				);
			}
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

const REPEATED_PAGE_ADVICE =
	"The service's next link did not move past records already read (as when a cursor is ignored). The node stopped rather than output records twice. Run it again; if it happens again, the service's paging is at fault.";

/**
 * The ids of the page before and of the page being read: a page that repeats a record of itself
 * or of the page before (a next link whose cursor the service ignored, the first page again) is
 * caught, in memory of two pages however long the list (a list of 100,000 assets or more keeps
 * no set of every id it read).
 */
class RecentIds {
	private previous = new Set<string>();

	/** The first record of `records` already seen, and where; records the page as the last one. */
	repeatedIn(records: IDataObject[]): { id: string; where: string } | undefined {
		const page = new Set<string>();
		for (const record of records) {
			const id = String(record.id);
			if (page.has(id)) return { id, where: 'twice on one page' };
			if (this.previous.has(id))
				return { id, where: 'again on the page after the one that held it' };
			page.add(id);
		}
		// an empty page (the service may send one mid-list) does not make the one before forgotten
		if (page.size) this.previous = page;
		return undefined;
	}
}

/** A SCIM list response's page, as `answers.ts` accepted it (`totalResults` is a number). */
interface ScimPage {
	Resources?: IDataObject[];
	totalResults: number;
	startIndex?: unknown;
	itemsPerPage?: unknown;
}

/**
 * Why a SCIM page is not the page asked for (RFC 7644 §3.4.2.4): it starts elsewhere, its
 * `itemsPerPage` does not count its users, or it holds users past `totalResults` or none before
 * it. Undefined when it adds up.
 */
export function scimPageProblem(page: ScimPage, startIndex: number): string | undefined {
	const held = (page.Resources ?? []).length;
	const last = startIndex - 1 + held;
	if (page.startIndex !== undefined && Number(page.startIndex) !== startIndex) {
		return `it answered startIndex ${JSON.stringify(page.startIndex)} to a request for startIndex ${startIndex}`;
	}
	if (page.itemsPerPage !== undefined) {
		const items = Number(page.itemsPerPage);
		// itemsPerPage counts the page's users; some servers give the page size, which only the
		// last page may fall short of
		if (!Number.isInteger(items) || items < held || (items > held && last < page.totalResults)) {
			return `its itemsPerPage is ${JSON.stringify(page.itemsPerPage)} but it holds ${held} users${last < page.totalResults ? ` and totalResults (${page.totalResults}) says more follow` : ''}`;
		}
	}
	if (last > page.totalResults) {
		return `it holds users ${startIndex} to ${last}, past its totalResults of ${page.totalResults}`;
	}
	if (held === 0 && startIndex <= page.totalResults) {
		return `it holds no users at startIndex ${startIndex}, though its totalResults is ${page.totalResults}`;
	}
	return undefined;
}

const SCIM_PAGING_ADVICE =
	"RFC 7644 §3.4.2.4: a page starts at the startIndex asked for, itemsPerPage counts its users and totalResults all of them. The node stopped rather than output users twice or leave some out. The server may ignore startIndex (SCIMMY's Express routers do on Express 5): fix or update it; where it honours count, a Page Size at least the number of users reads them all in one request.";

const SCIM_REPEAT_ADVICE =
	'The list changed while it was read (a user added or removed moves the users after it from one page to another), or the server does not page as RFC 7644 §3.4.2.4 says. The node stopped rather than output a user twice: run it again; if it happens again, check how the server pages.';

/**
 * Reads a SCIM list with `startIndex`/`count` until `totalResults` is reached. Each page is
 * checked against what was asked for (see scimPageProblem), and no user may come twice: a server
 * that pages otherwise is an error, never duplicates or gaps in the output.
 */
export async function* paginateScim(
	this: RequestContext,
	path: string,
	qs: IDataObject,
	options: ListOptions,
): AsyncGenerator<ListPage> {
	const pageSize = Math.min(options.pageSize ?? 100, MAX_PAGE_SIZE);
	let remaining = options.limit ?? Infinity;
	let startIndex = 1;
	/** Each user's id, and the startIndex of the page that held it. */
	const seen = new Map<string, number>();
	const fail = (message: string, description: string) =>
		new NodeOperationError(this.getNode(), `Could not ${options.operation}: ${message}`, {
			itemIndex: options.itemIndex,
			description,
		});
	while (remaining > 0) {
		const call = await resolveCall(this, 'GET', path, {
			qs: { ...qs, startIndex, count: Math.min(pageSize, remaining) },
			operation: options.operation,
			answer: 'users',
			itemIndex: options.itemIndex,
			retry: options.retry,
		});
		const page = (await send(this, call)).body as ScimPage;
		const problem = scimPageProblem(page, startIndex);
		if (problem)
			throw fail(`the server did not answer the page asked for: ${problem}`, SCIM_PAGING_ADVICE);
		const records = (page.Resources ?? []).slice(0, remaining);
		for (const record of records) {
			const id = String(record.id);
			const first = seen.get(id);
			if (first !== undefined) {
				throw fail(
					`the server answered the user ${id} twice (on the pages at startIndex ${first} and ${startIndex})`,
					SCIM_REPEAT_ADVICE,
				);
			}
			seen.set(id, startIndex);
		}
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
