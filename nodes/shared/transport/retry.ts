import type { Failure as DeclaredFailure } from 'n8n-workflow';
import type { Failure } from './failure';

/** How hard to try before giving up on a call the service may answer later. */
export interface RetryPolicy {
	/** Attempts in all, the first one included. */
	maxAttempts: number;
	/** Total time spent waiting between attempts, in milliseconds. */
	maxWaitMs: number;
	/**
	 * How long one attempt may wait for the service's answer, in milliseconds; an attempt that
	 * runs out is a failed attempt like a dropped connection (retried within the policy).
	 */
	timeoutMs: number;
	/**
	 * When (epoch ms) every attempt and wait must be over, e.g. the end of a poll's turn: an attempt
	 * waits for its answer at most until then, and a wait that would end later is not begun.
	 */
	deadline?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 6, maxWaitMs: 60_000, timeoutMs: 30_000 };

/** For the editor's calls (list searches, option lists): a person is waiting, so a few seconds. */
export const EDITOR_RETRY: RetryPolicy = { maxAttempts: 2, maxWaitMs: 2_000, timeoutMs: 10_000 };

const RETRYABLE_STATUSES = [429, 502, 503, 504];
const RETRYABLE_CODES = ['ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE'];
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 20_000;

export function isRetryable(failure: Failure): boolean {
	if (failure.tokenError) return false;
	// not the service's answer (a gateway's page, JSON cut short): like a 502, it may pass
	if (failure.unexpected) return true;
	if (failure.status !== undefined) return RETRYABLE_STATUSES.includes(failure.status);
	return failure.code !== undefined && RETRYABLE_CODES.includes(failure.code);
}

/**
 * Why a call failed, in n8n's words (`NodeApiError`'s `failure`, n8n 2.41 and later; older n8n
 * ignores it), so n8n's poll scheduler backs off for as long as the service asked instead of
 * guessing: a rate limit with the service's `Retry-After`, a service down or degraded, or a
 * credential the user has to fix. Other failures are left to n8n's own reading.
 */
export function declaredFailure(failure: Failure): DeclaredFailure | undefined {
	if (failure.tokenError !== undefined || failure.status === 401)
		return { cause: 'credential-invalid' };
	const wait = failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {};
	if (failure.status === 429) return { cause: 'rate-limited', ...wait };
	if (isRetryable(failure)) return { cause: 'temporarily-unavailable', ...wait };
	return undefined;
}

/**
 * The wait before the next attempt: the server's `Retry-After` when it gave one, otherwise
 * exponential backoff with jitter (half fixed, half random) so parallel clients spread out.
 */
export function retryDelay(failure: Failure, attempt: number, random: () => number): number {
	if (failure.retryAfterMs !== undefined) return failure.retryAfterMs;
	const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
