import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
} from 'n8n-workflow';
import { readAnswer, type AnswerShape } from './answers';
import { authorizedRequest, type RequestContext } from './credential';
import { readFailure, readProblem, readStreamBodies, type Failure } from './failure';
import { describeFailure, redactSecrets } from './messages';
import { declaredFailure, DEFAULT_RETRY, isRetryable, retryDelay, type RetryPolicy } from './retry';

export interface RequestOptions {
	qs?: IDataObject;
	body?: IDataObject;
	/** What the call does, in words, for error messages: "update the asset". */
	operation: string;
	/** What a successful answer is; anything else is a failure, retried like a 5xx. */
	answer: AnswerShape;
	itemIndex?: number;
	retry?: RetryPolicy;
}

export interface Call {
	method: IHttpRequestMethods;
	url: string;
	baseUrl: string;
	options: RequestOptions;
}

const ABANDONED =
	'The request was abandoned: the execution was cancelled, or its answer was no longer needed';

/**
 * Lets a call be given up: its request aborted and its retry waits ended, when its answer is no
 * longer wanted (a page fetched ahead) or when n8n cancels the execution.
 */
export class Abandonment {
	private readonly controller = new AbortController();
	private readonly execution: AbortSignal | undefined;
	private readonly onCancel = () => this.controller.abort();

	constructor(context: RequestContext) {
		this.execution =
			'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
		if (this.execution?.aborted) this.controller.abort();
		else this.execution?.addEventListener('abort', this.onCancel, { once: true });
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	abandon(): void {
		this.controller.abort();
		this.release();
	}

	/** Stops listening to the execution (the call is over). */
	release(): void {
		this.execution?.removeEventListener('abort', this.onCancel);
	}
}

/** Waits `ms`, or less when the signal aborts; says whether it did. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
	if (signal.aborted) return true;
	let onAbort: (() => void) | undefined;
	try {
		return await Promise.race([
			sleep(ms).then(() => false),
			new Promise<boolean>((resolve) => {
				onAbort = () => resolve(true);
				signal.addEventListener('abort', onAbort, { once: true });
			}),
		]);
	} finally {
		if (onAbort) signal.removeEventListener('abort', onAbort);
	}
}

/**
 * The context to make a request through, and the request, so that `signal` aborts it. n8n 2.x's
 * helper sets every request's abort signal from the context's execution signal, so the context
 * hands out ours (which the execution's also aborts); older helpers read it from the request.
 */
function aborting(
	context: RequestContext,
	request: IHttpRequestOptions,
	signal: AbortSignal,
): RequestContext {
	request.abortSignal = signal;
	return 'getExecutionCancelSignal' in context
		? (Object.create(context, {
				getExecutionCancelSignal: { value: () => signal },
			}) as RequestContext)
		: context;
}

/**
 * What calls to the SCIM users interface accept: SCIM's own media type (RFC 7644 §3.1), and plain
 * JSON, which some servers answer with. n8n's helper would ask for `application/json` alone.
 */
export const SCIM_ACCEPT = 'application/scim+json, application/json';

const isScimCall = (call: Call): boolean =>
	/^\/api\/scim\//i.test(call.url.slice(call.baseUrl.length));

/**
 * The request n8n's helper sends for a call (the body read as JSON, or left as a stream). The
 * bench sends the same through n8n's helper alone, for the least a node's writes can cost.
 */
export function requestFor(call: Call, encoding?: 'stream'): IHttpRequestOptions {
	const retry = call.options.retry ?? DEFAULT_RETRY;
	const left = retry.deadline === undefined ? Infinity : retry.deadline - Date.now();
	const request: IHttpRequestOptions = {
		method: call.method,
		url: call.url,
		json: true,
		returnFullResponse: true,
		timeout: Math.max(1, Math.min(retry.timeoutMs, left)),
		// The service answers at its Base URL. A redirect is refused, not followed: a followed
		// write could land elsewhere and carry the token to another origin, and n8n's redirect
		// machinery (follow-redirects) costs about a tenth of each request's CPU.
		disableFollowRedirect: true,
	};
	if (encoding) request.encoding = encoding;
	if (isScimCall(call)) request.headers = { Accept: SCIM_ACCEPT };
	if (call.options.qs && Object.keys(call.options.qs).length) request.qs = call.options.qs;
	if (call.options.body !== undefined) request.body = call.options.body;
	return request;
}

/** The requests made for one call so far, and the time spent waiting between them. */
export interface Attempts {
	made: number;
	waitedMs: number;
	/** An attempt got no answer, or not the service's: the service may have carried it out. */
	unanswered: boolean;
}

/** An answer `send` accepted. */
export interface Exchange {
	headers: IDataObject;
	statusCode?: number;
	/** The JSON body, checked against the call's answer shape; for a streamed call, the stream. */
	body: unknown;
	attempts: Attempts;
}

export interface SendOptions {
	/** Leave the body as a stream (it is read, and checked, by the caller). */
	stream?: boolean;
	abandonment?: Abandonment;
	/** Continue a call whose earlier attempts were made elsewhere, the last one failing thus. */
	after?: { attempts: Attempts; failure: Failure };
}

/**
 * Sends a call with the credential's token (see `authorizedRequest`: n8n obtains, stores and
 * renews the OAuth2 token) until it succeeds or the retry policy gives up: 429 (honouring
 * Retry-After), 502/503/504, dropped connections and answers that are not the service's are
 * retried; any other failure, or one that outlasts the policy, becomes a NodeApiError that says
 * what to do.
 */
export async function send(
	context: RequestContext,
	call: Call,
	options: SendOptions = {},
): Promise<Exchange> {
	const retry = call.options.retry ?? DEFAULT_RETRY;
	const abandonment = options.abandonment ?? new Abandonment(context);
	const attempts: Attempts = options.after?.attempts ?? {
		made: 0,
		waitedMs: 0,
		unanswered: false,
	};
	let failure = options.after?.failure;
	try {
		for (;;) {
			if (failure) {
				const delay = isRetryable(failure)
					? retryDelay(failure, attempts.made, Math.random)
					: undefined;
				if (
					delay === undefined ||
					attempts.made >= retry.maxAttempts ||
					attempts.waitedMs + delay > retry.maxWaitMs ||
					Date.now() + delay >= (retry.deadline ?? Infinity)
				) {
					throw toNodeApiError(context, failure, call, attempts.made, retry.timeoutMs);
				}
				context.logger.debug(
					`Stockroom: retrying ${call.method} after ${failure.status ?? failure.code} in ${delay} ms (attempt ${attempts.made} of ${retry.maxAttempts})`,
				);
				attempts.waitedMs += delay;
				if (await pause(delay, abandonment.signal))
					throw new NodeOperationError(context.getNode(), ABANDONED);
			}
			attempts.made++;
			try {
				const request = requestFor(call, options.stream ? 'stream' : undefined);
				const via = aborting(context, request, abandonment.signal);
				const response = await authorizedRequest(context, via, request);
				const headers = response.headers ?? {};
				const answer = options.stream
					? { body: response.body, failure: undefined }
					: readAnswer(call.options.answer, response.statusCode, headers, response.body);
				if (!answer.failure) {
					return { headers, statusCode: response.statusCode, body: answer.body, attempts };
				}
				failure = answer.failure;
			} catch (error) {
				if (abandonment.signal.aborted) throw new NodeOperationError(context.getNode(), ABANDONED);
				await readStreamBodies(error);
				failure = readFailure(error, Date.now());
				// a DELETE whose answer was lost and that is now "not found" was most likely carried out
				// by the lost attempt: what the caller asked for is done
				if (
					call.method === 'DELETE' &&
					failure.status === 404 &&
					attempts.unanswered &&
					readProblem(failure.body).isServiceAnswer
				) {
					context.logger.debug('Stockroom: DELETE answered 404 after a lost answer: taken as done');
					return { headers: {}, body: {}, attempts };
				}
			}
			attempts.unanswered ||= failure.status === undefined || failure.unexpected !== undefined;
		}
	} finally {
		if (!options.abandonment) abandonment.release();
	}
}

/** Errors for a failed call that are the service's own "it does not exist". */
const notFoundErrors = new WeakSet<NodeApiError>();

/** Whether a call failed because the record does not exist (the service said so). */
export const isNotFound = (error: unknown): boolean =>
	error instanceof NodeApiError && notFoundErrors.has(error);

function toNodeApiError(
	context: RequestContext,
	failure: Failure,
	call: Call,
	attempts: number,
	timeoutMs: number,
): NodeApiError {
	const problem = readProblem(failure.body);
	// the service's and n8n's own text is copied into these: never let a token or secret through
	const described = describeFailure(failure, problem, {
		operation: call.options.operation,
		method: call.method,
		path: call.url.slice(call.baseUrl.length) || call.url,
		baseUrl: call.baseUrl,
		attempts,
		timeoutMs,
	});
	const message = redactSecrets(described.message);
	const description = described.description && redactSecrets(described.description);
	const httpCode = failure.status === undefined ? undefined : String(failure.status);
	const response: IDataObject = { message };
	if (httpCode) response.httpCode = httpCode;
	const error = new NodeApiError(context.getNode(), response as never, {
		message,
		description,
		httpCode,
		itemIndex: call.options.itemIndex,
		failure: declaredFailure(failure),
	});
	// n8n swaps a message that mentions an error code (ECONNRESET, or an External ID such as
	// "EPERM-01") for its own generic text; ours says what failed and what to do
	error.message = message;
	if (failure.status === 404 && problem.isServiceAnswer) notFoundErrors.add(error);
	return error;
}
