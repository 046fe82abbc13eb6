import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
} from 'n8n-workflow';
import { readFailure, readProblem, readStreamBodies, type Failure } from './failure';
import { isBodyStream, nextLinkOf, readJson, type BodyStream } from './stream';
import { describeFailure, redactSecrets } from './messages';
import { DEFAULT_RETRY, isRetryable, retryDelay, type RetryPolicy } from './retry';

export { DEFAULT_RETRY, EDITOR_RETRY, type RetryPolicy } from './retry';

export const CREDENTIAL_TYPE = 'stockroomOAuth2Api';

export type RequestContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface RequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	/** What the call does, in words, for error messages: "update the asset". */
	operation: string;
	itemIndex?: number;
	retry?: RetryPolicy;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const baseUrls = new WeakMap<object, Promise<string>>();

/** The credential's base URL without trailing slashes; https unless the host is loopback. */
export function normalizeBaseUrl(value: unknown): string {
	const text = typeof value === 'string' ? value.trim().replace(/\/+$/, '') : '';
	const match = /^(https?):\/\/([^/?#]+)(\/[^?#]*)?$/i.exec(text);
	if (!match) {
		throw new Error(`Base URL must be an address like https://api.example.com, got "${text}"`);
	}
	const host = match[2].replace(/:\d+$/, '').toLowerCase();
	if (match[1].toLowerCase() !== 'https' && !LOOPBACK_HOSTS.includes(host)) {
		throw new Error(
			`Base URL must use https:// (plain http is only allowed for localhost, 127.0.0.1 and [::1]), got "${text}"`,
		);
	}
	return text;
}

/** The credential's base URL, read once per execution context. */
export async function getBaseUrl(this: RequestContext): Promise<string> {
	let pending = baseUrls.get(this);
	if (!pending) {
		pending = this.getCredentials(CREDENTIAL_TYPE).then(
			(credentials) => credentials.baseUrl as string,
		);
		baseUrls.set(this, pending);
	}
	const configured = await pending;
	try {
		return normalizeBaseUrl(configured);
	} catch (error) {
		throw new NodeOperationError(
			this.getNode(),
			`Credential problem: ${(error as Error).message}`,
			{
				description: 'Open the Stockroom credential and correct its Base URL.',
			},
		);
	}
}

/**
 * `next` links are absolute and carry the original query; they are followed as given, but on the
 * credential's own origin so the bearer token never goes to a host the user did not configure.
 */
export function onBaseOrigin(link: string, baseUrl: string): string {
	const origin = /^https?:\/\/[^/?#]+/i;
	const linkOrigin = origin.exec(link)?.[0];
	const baseOrigin = origin.exec(baseUrl)?.[0];
	return linkOrigin && baseOrigin && linkOrigin !== baseOrigin
		? baseOrigin + link.slice(linkOrigin.length)
		: link;
}

/**
 * Makes one call to the service through n8n's authenticated request helper (n8n obtains and
 * caches the OAuth2 token and retries once on 401). Retries 429 (honouring Retry-After),
 * 502/503/504 and dropped connections within the retry policy; every other failure, or one that
 * outlasts the policy, becomes a NodeApiError that says what to do.
 */
export async function apiRequest(
	this: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<IDataObject> {
	return (await apiExchange.call(this, method, pathOrUrl, options)).body;
}

/** A response: its JSON body and its headers (lower-case names). */
export interface ApiResponse {
	body: IDataObject;
	headers: IDataObject;
}

interface Call {
	method: IHttpRequestMethods;
	url: string;
	baseUrl: string;
	options: RequestOptions;
}

/** The request n8n's helper sends for a call (the body read as JSON, or left as a stream). */
function requestFor(call: Call, encoding?: 'stream'): IHttpRequestOptions {
	const request: IHttpRequestOptions = {
		method: call.method,
		url: call.url,
		json: true,
		returnFullResponse: true,
		timeout: (call.options.retry ?? DEFAULT_RETRY).timeoutMs,
	};
	if (encoding) request.encoding = encoding;
	if (call.options.qs && Object.keys(call.options.qs).length) request.qs = call.options.qs;
	if (call.options.body !== undefined) request.body = call.options.body;
	return request;
}

async function resolveCall(
	context: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<Call> {
	const baseUrl = await getBaseUrl.call(context);
	const url = /^https?:\/\//i.test(pathOrUrl)
		? onBaseOrigin(pathOrUrl, baseUrl)
		: baseUrl + pathOrUrl;
	return { method, url, baseUrl, options };
}

/**
 * Sends a call through n8n's authenticated request helper until it succeeds or the retry policy
 * gives up: 429 (honouring Retry-After), 502/503/504 and dropped connections are retried; any
 * other failure, or one that outlasts the policy, becomes a NodeApiError that says what to do.
 */
async function send<T extends { headers?: IDataObject; body?: unknown }>(
	context: RequestContext,
	call: Call,
	encoding?: 'stream',
): Promise<T> {
	const retry = call.options.retry ?? DEFAULT_RETRY;
	let waited = 0;
	/** An earlier attempt got no answer: the service may have carried it out all the same. */
	let unanswered = false;
	for (let attempt = 1; ; attempt++) {
		try {
			return (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				requestFor(call, encoding),
			)) as T;
		} catch (error) {
			await readStreamBodies(error);
			const failure = readFailure(error, Date.now());
			// a DELETE whose answer was lost and that is now "not found" was most likely carried out
			// by the lost attempt: what the caller asked for is done
			if (call.method === 'DELETE' && failure.status === 404 && unanswered) {
				context.logger.debug('Stockroom: DELETE answered 404 after a lost answer: taken as done');
				return { body: {}, headers: {} } as T;
			}
			unanswered ||= failure.status === undefined;
			const delay = isRetryable(failure) ? retryDelay(failure, attempt, Math.random) : undefined;
			if (delay === undefined || attempt >= retry.maxAttempts || waited + delay > retry.maxWaitMs) {
				throw toNodeApiError(context, failure, {
					...call.options,
					method: call.method,
					path: call.url.slice(call.baseUrl.length) || call.url,
					baseUrl: call.baseUrl,
					attempts: attempt,
					timeoutMs: retry.timeoutMs,
				});
			}
			context.logger.debug(
				`Stockroom: retrying ${call.method} after ${failure.status ?? failure.code} in ${delay} ms (attempt ${attempt} of ${retry.maxAttempts})`,
			);
			waited += delay;
			await sleep(delay);
		}
	}
}

/** `apiRequest`, also giving the response's headers (the service's clock is in `date`). */
export async function apiExchange(
	this: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<ApiResponse> {
	const call = await resolveCall(this, method, pathOrUrl, options);
	const response = await send<{ body?: unknown; headers?: IDataObject }>(this, call);
	const body = response.body;
	return {
		body: (typeof body === 'object' && body !== null ? body : {}) as IDataObject,
		headers: response.headers ?? {},
	};
}

/** A GET whose headers have arrived and whose body has not been read yet. */
interface OpenResponse {
	call: Call;
	headers: IDataObject;
	/** The body still to read; already parsed when n8n's helper read it anyway. */
	body: BodyStream | IDataObject;
}

/** Starts a GET and resolves as soon as its headers arrive (the body is read later). */
async function openGet(
	context: RequestContext,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<OpenResponse> {
	const call = await resolveCall(context, 'GET', pathOrUrl, options);
	const { body, headers } = await send<{ body?: unknown; headers?: IDataObject }>(
		context,
		call,
		'stream',
	);
	return {
		call,
		headers: headers ?? {},
		body: isBodyStream(body) ? body : ((body ?? {}) as IDataObject),
	};
}

/** Drops a response that will not be read (a page fetched ahead that is not needed). */
function discard(pending: Promise<OpenResponse> | undefined): void {
	pending?.then(
		({ body }) => (isBodyStream(body) ? body.destroy() : undefined),
		() => undefined,
	);
}

function toNodeApiError(
	context: RequestContext,
	failure: Failure,
	details: RequestOptions & {
		method: string;
		path: string;
		baseUrl: string;
		attempts: number;
		timeoutMs: number;
	},
): NodeApiError {
	const problem = readProblem(failure.body);
	// the service's and n8n's own text is copied into these: never let a token or secret through
	const described = describeFailure(failure, problem, details);
	const message = redactSecrets(described.message);
	const description = described.description && redactSecrets(described.description);
	const response: IDataObject = { message };
	if (failure.status !== undefined) response.httpCode = String(failure.status);
	return new NodeApiError(context.getNode(), response as never, {
		message,
		description,
		httpCode: failure.status === undefined ? undefined : String(failure.status),
		itemIndex: details.itemIndex,
	});
}

/** Whether a call failed because the record does not exist. */
export const isNotFound = (error: unknown): boolean =>
	error instanceof NodeApiError && error.httpCode === '404';

export interface ListOptions {
	operation: string;
	/** Stop after this many records; undefined reads every page. */
	limit?: number;
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

/**
 * Reads a list page by page, following the `next` link exactly as the service gives it (it
 * carries the filter and every other parameter); stops when there is no `next` or at `limit`.
 * `path` may itself be a `next` link, to continue an earlier walk. The following page is asked
 * for as soon as a page's headers arrive (its `Link` header names it), so the service prepares it
 * while this page's body downloads and is read: one page ahead at most, in order, each once.
 */
export async function* paginate(
	this: RequestContext,
	path: string,
	qs: IDataObject | undefined,
	options: ListOptions,
): AsyncGenerator<ListPage> {
	const pageSize = Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	let remaining = options.limit ?? Infinity;
	/** The most records one page can bring: the `limit` of the first request, kept in every link. */
	const perPage = Math.min(pageSize, remaining);
	const request = (query?: IDataObject): RequestOptions => ({
		qs: query,
		operation: options.operation,
		itemIndex: options.itemIndex,
		retry: options.retry,
	});
	const wantsMore = () =>
		remaining > perPage && (!options.shouldContinue || options.shouldContinue());
	let pending: Promise<OpenResponse> | undefined = openGet(
		this,
		path,
		request(qs && { ...qs, limit: perPage }),
	);
	try {
		while (pending) {
			const response: OpenResponse = await pending;
			pending = undefined;
			const link = nextLinkOf(response.headers);
			let ahead = link !== undefined && wantsMore() ? openGet(this, link, request()) : undefined;
			let page: { results?: IDataObject[]; next?: string };
			let headers = response.headers;
			try {
				page = isBodyStream(response.body) ? await readJson(response.body) : response.body;
			} catch {
				// the connection dropped while the body came: ask for this page again, in order
				discard(ahead);
				ahead = undefined;
				({ body: page, headers } = await apiExchange.call(
					this,
					'GET',
					response.call.url,
					response.call.options,
				));
			}
			const records = (page.results ?? []).slice(0, remaining);
			remaining -= records.length;
			const next = typeof page.next === 'string' && page.next ? page.next : undefined;
			if (ahead && next !== link) {
				discard(ahead);
				ahead = undefined;
			}
			// kept where `finally` finds it, should the reader stop here
			pending = ahead;
			yield { records, next, answeredAt: headerDate(headers) };
			if (next === undefined || remaining <= 0) return;
			if (options.shouldContinue && !options.shouldContinue()) return;
			pending ??= openGet(this, next, request());
		}
	} finally {
		discard(pending);
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
		const page = (await apiRequest.call(this, 'GET', path, {
			qs: { ...qs, startIndex, count: Math.min(pageSize, remaining) },
			operation: options.operation,
			itemIndex: options.itemIndex,
			retry: options.retry,
		})) as { Resources?: IDataObject[]; totalResults?: number };
		const records = (page.Resources ?? []).slice(0, remaining);
		remaining -= records.length;
		yield { records };
		startIndex += records.length;
		if (!records.length || startIndex > (page.totalResults ?? 0)) return;
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
