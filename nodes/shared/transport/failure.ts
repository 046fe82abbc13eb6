import type { JsonObject } from 'n8n-workflow';
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
 * A failed call made with `encoding: 'stream'` carries its error body as a stream: read it, so
 * the service's problem details can be shown like any other call's.
 */
export async function readStreamBodies(error: unknown): Promise<void> {
	for (const layer of causes(error)) {
		const response = layer.response as Record<string, unknown> | undefined;
		for (const key of ['data', 'body'] as const) {
			const body = response?.[key];
			if (!isBodyStream(body)) continue;
			try {
				response![key] = await readText(body);
			} catch {
				response![key] = undefined;
			}
		}
	}
}

export function readFailure(error: unknown, now: number): Failure {
	const failure: Failure = { message: error instanceof Error ? error.message : String(error) };
	for (const layer of causes(error)) {
		const response = layer.response as Record<string, unknown> | undefined;
		if (response && typeof response === 'object') {
			const status = Number(response.status ?? response.statusCode);
			if (failure.status === undefined && Number.isInteger(status) && status > 0)
				failure.status = status;
			if (failure.body === undefined && response.data !== undefined)
				failure.body = parseBody(response.data);
			if (failure.body === undefined && response.body !== undefined)
				failure.body = parseBody(response.body);
			failure.retryAfterMs ??= parseRetryAfter(header(response.headers, 'retry-after'), now);
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
		if (
			failure.code === undefined &&
			typeof layer.message === 'string' &&
			/socket hang up/i.test(layer.message)
		) {
			failure.code = 'ECONNRESET';
		}
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
}

export function readProblem(body: unknown): Problem {
	if (!isPlainObject(body)) return {};
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
	};
}

/** The minimal, secret-free object handed to NodeApiError (never the HTTP client's error). */
export function safeErrorResponse(failure: Failure, problem: Problem): JsonObject {
	const response: JsonObject = { message: problem.title ?? failure.message };
	if (failure.status !== undefined) response.httpCode = String(failure.status);
	if (problem.traceId) response.traceId = problem.traceId;
	if (problem.errors) response.errors = problem.errors;
	return response;
}
