import { isPlainObject } from '../schema/values';
import { isBodyStream, readText } from './stream';

/** What went wrong with one HTTP call, read from whatever n8n's request helpers threw. */
export interface Failure {
	status?: number;
	/** Connection-level error code such as ECONNRESET, when no response arrived. */
	code?: string;
	/** The `Retry-After` header, in milliseconds from now. */
	retryAfterMs?: number;
	body?: unknown;
	/** OAuth2 error code from the token endpoint (`invalid_client`, `invalid_scope`, ...). */
	tokenError?: string;
	/** The raw error message, for connection failures; never includes request headers. */
	message: string;
	/** The answer's `Content-Type`, when there was an answer. */
	contentType?: string;
	/** Where a redirect (3xx) points: its `Location` header. */
	location?: string;
	/** Set when a 2xx answer is not what the service sends (a gateway's page, JSON cut short). */
	unexpected?: {
		contentType?: string;
		/** The first characters of the body. */
		excerpt: string;
		/** What the call expected, in words. */
		expected: string;
	};
}

const CONNECTION_CODES = [
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EPIPE',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
];

/** The errors n8n's helpers throw wrap the HTTP client's error one or more levels deep. */
function* causes(error: unknown): Generator<Record<string, unknown>> {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
		const record = current as Record<string, unknown>;
		yield record;
		current = record.cause ?? record.reason;
	}
}

function header(headers: unknown, name: string): string | undefined {
	if (!isPlainObject(headers) && !(typeof headers === 'object' && headers !== null))
		return undefined;
	const record = headers as Record<string, unknown> & { get?: (key: string) => unknown };
	const value =
		typeof record.get === 'function'
			? record.get(name)
			: (record[name] ?? record[name.toLowerCase()]);
	return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
	const at = Date.parse(value);
	return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function parseBody(data: unknown): unknown {
	if (typeof data !== 'string') return data;
	try {
		return JSON.parse(data);
	} catch {
		return data;
	}
}

/**
 * Where a layer keeps the response body: axios's `response.data`, a `response.body`, or (n8n 1.x,
 * whose NodeApiError drops its `cause`) the `context.data` it copied from the response.
 */
function bodyHolders(layer: Record<string, unknown>): Array<[Record<string, unknown>, string]> {
	const holders: Array<[Record<string, unknown>, string]> = [];
	const response = layer.response;
	if (typeof response === 'object' && response !== null) {
		holders.push([response as Record<string, unknown>, 'data']);
		holders.push([response as Record<string, unknown>, 'body']);
	}
	if (isPlainObject(layer.context)) holders.push([layer.context, 'data']);
	return holders;
}

/**
 * A failed call made with `encoding: 'stream'` carries its error body as a stream: read it (once,
 * wherever it is referenced), so the service's problem details can be shown like any other call's.
 */
export async function readStreamBodies(error: unknown): Promise<void> {
	const read = new Map<unknown, string | undefined>();
	for (const layer of causes(error)) {
		for (const [holder, key] of bodyHolders(layer)) {
			const body = holder[key];
			if (!isBodyStream(body)) continue;
			if (!read.has(body)) read.set(body, await readText(body).catch(() => undefined));
			holder[key] = read.get(body);
		}
	}
}

/**
 * The connection error code named in an error's text. n8n 1.x replaces the message of a
 * connection failure with its own words and keeps the original (`read ECONNRESET`, `socket hang
 * up`, `timeout of 1000ms exceeded`) in `messages`; the code itself is not kept.
 */
function codeInText(text: string): string | undefined {
	const named = CONNECTION_CODES.find((code) => new RegExp(`\\b${code}\\b`).test(text));
	if (named) return named;
	if (/socket hang up|^aborted$|stream has been aborted/i.test(text.trim())) return 'ECONNRESET';
	if (/timeout of \d+ ?ms exceeded/i.test(text)) return 'ECONNABORTED';
	return undefined;
}

export function readFailure(error: unknown, now: number): Failure {
	const failure: Failure = { message: error instanceof Error ? error.message : String(error) };
	/** Error texts, n8n's kept originals first: the code is read from them when no layer has one. */
	const texts: unknown[] = [];
	for (const layer of causes(error)) {
		const response = layer.response as Record<string, unknown> | undefined;
		if (response && typeof response === 'object') {
			const status = Number(response.status ?? response.statusCode);
			if (failure.status === undefined && Number.isInteger(status) && status > 0)
				failure.status = status;
			failure.retryAfterMs ??= parseRetryAfter(header(response.headers, 'retry-after'), now);
			failure.contentType ??= header(response.headers, 'content-type');
			failure.location ??= header(response.headers, 'location');
		}
		for (const [holder, key] of bodyHolders(layer)) {
			if (failure.body === undefined && holder[key] !== undefined && holder[key] !== '')
				failure.body = parseBody(holder[key]);
		}
		if (failure.status === undefined) {
			const httpCode = Number(layer.httpCode ?? layer.statusCode);
			if (Number.isInteger(httpCode) && httpCode > 0) failure.status = httpCode;
		}
		if (
			failure.code === undefined &&
			typeof layer.code === 'string' &&
			CONNECTION_CODES.includes(layer.code)
		) {
			failure.code = layer.code;
		}
		if (
			failure.tokenError === undefined &&
			isPlainObject(layer.body) &&
			typeof layer.body.error === 'string'
		) {
			failure.tokenError = layer.body.error;
		}
		if (Array.isArray(layer.messages)) texts.push(...layer.messages);
		texts.push(layer.message);
	}
	if (failure.code === undefined && failure.status === undefined) {
		for (const text of texts) {
			if (typeof text === 'string') failure.code ??= codeInText(text);
		}
	}
	if (failure.status !== undefined && failure.status < 300) {
		// a success whose body was cut on the way: the call was carried out, its answer was lost
		failure.status = undefined;
		failure.body = undefined;
		failure.code ??= 'ECONNRESET';
	}
	return failure;
}

/** A problem-details body (service-behaviour.md §7) or the service's fault body, when it is one. */
export interface Problem {
	title?: string;
	detail?: string;
	errors?: Record<string, string[]>;
	traceId?: string;
	/** OAuth2 token endpoint error code (`invalid_client`, `invalid_scope`). */
	error?: string;
	/** A SCIM error (RFC 7644 §3.12): the body names the SCIM Error schema or has a `scimType`. */
	scim?: boolean;
	/** The SCIM error's kind: `invalidFilter`, `uniqueness`, `tooMany`, ... */
	scimType?: string;
	/** The body is JSON, as the service's errors are (not a gateway's page). */
	isServiceAnswer: boolean;
}

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export function readProblem(body: unknown): Problem {
	if (!isPlainObject(body)) return { isServiceAnswer: false };
	const extensions = isPlainObject(body.extensions) ? body.extensions : {};
	const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined);
	const errors: Record<string, string[]> = {};
	if (isPlainObject(body.errors)) {
		for (const [field, messages] of Object.entries(body.errors)) {
			errors[field] = (Array.isArray(messages) ? messages : [messages]).map(String);
		}
	}
	return {
		title: text(body.title) ?? text(body.message),
		detail: text(body.detail),
		errors: Object.keys(errors).length ? errors : undefined,
		traceId: text(extensions.traceId) ?? text(body.traceId),
		error: text(body.error),
		scim:
			(Array.isArray(body.schemas) && body.schemas.includes(SCIM_ERROR)) ||
			text(body.scimType) !== undefined,
		scimType: text(body.scimType),
		isServiceAnswer: true,
	};
}
