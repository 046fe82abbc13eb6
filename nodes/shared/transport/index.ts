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
import { readFailure, readProblem, type Failure } from './failure';
import { describeFailure } from './messages';
import { DEFAULT_RETRY, isRetryable, retryDelay, type RetryPolicy } from './retry';

export { DEFAULT_RETRY, type RetryPolicy } from './retry';

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

/** `apiRequest`, also giving the response's headers (the service's clock is in `date`). */
export async function apiExchange(
	this: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<ApiResponse> {
	const baseUrl = await getBaseUrl.call(this);
	const url = /^https?:\/\//i.test(pathOrUrl)
		? onBaseOrigin(pathOrUrl, baseUrl)
		: baseUrl + pathOrUrl;
	const retry = options.retry ?? DEFAULT_RETRY;
	let waited = 0;
	for (let attempt = 1; ; attempt++) {
		const request: IHttpRequestOptions = { method, url, json: true, returnFullResponse: true };
		if (options.qs && Object.keys(options.qs).length) request.qs = options.qs;
		if (options.body !== undefined) request.body = options.body;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				request,
			)) as { body?: unknown; headers?: IDataObject };
			const body = response.body;
			return {
				body: (typeof body === 'object' && body !== null ? body : {}) as IDataObject,
				headers: response.headers ?? {},
			};
		} catch (error) {
			const failure = readFailure(error, Date.now());
			const delay = isRetryable(failure) ? retryDelay(failure, attempt, Math.random) : undefined;
			if (delay === undefined || attempt >= retry.maxAttempts || waited + delay > retry.maxWaitMs) {
				throw toNodeApiError(this, failure, {
					...options,
					method,
					path: url.slice(baseUrl.length) || url,
					baseUrl,
					attempts: attempt,
				});
			}
			this.logger.debug(
				`Stockroom: retrying ${method} after ${failure.status ?? failure.code} in ${delay} ms (attempt ${attempt} of ${retry.maxAttempts})`,
			);
			waited += delay;
			await sleep(delay);
		}
	}
}

function toNodeApiError(
	context: RequestContext,
	failure: Failure,
	details: RequestOptions & { method: string; path: string; baseUrl: string; attempts: number },
): NodeApiError {
	const problem = readProblem(failure.body);
	const { message, description } = describeFailure(failure, problem, details);
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
 * Reads a list page by page, following the absolute `next` link exactly as the server gives it
 * (it carries the filter and every other parameter); stops when `next` is absent or at `limit`.
 * `path` may itself be a `next` link, to continue an earlier walk.
 */
export async function* paginate(
	this: RequestContext,
	path: string,
	qs: IDataObject | undefined,
	options: ListOptions,
): AsyncGenerator<ListPage> {
	const pageSize = Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	let remaining = options.limit ?? Infinity;
	let next: string | undefined = path;
	let query: IDataObject | undefined = qs && { ...qs, limit: Math.min(pageSize, remaining) };
	while (next !== undefined && remaining > 0) {
		const { body, headers } = await apiExchange.call(this, 'GET', next, {
			qs: query,
			operation: options.operation,
			itemIndex: options.itemIndex,
			retry: options.retry,
		});
		const page = body as { results?: IDataObject[]; next?: string };
		const records = (page.results ?? []).slice(0, remaining);
		remaining -= records.length;
		next = typeof page.next === 'string' && page.next ? page.next : undefined;
		yield { records, next, answeredAt: headerDate(headers) };
		query = undefined;
		if (next !== undefined && options.shouldContinue && !options.shouldContinue()) return;
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
