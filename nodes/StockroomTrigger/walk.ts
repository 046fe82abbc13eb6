import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IPollFunctions,
} from 'n8n-workflow';
import { paginate, type RetryPolicy } from '../shared/transport';

/**
 * A walk reads every page of one list query. A poll's time budget can cut it short; the next
 * poll continues it from the `next` link it stopped at, so a backlog of any size is read once.
 */
export interface WalkState {
	/** The `next` link to continue from; none: read the walk again from its first page. */
	next?: string;
	/** When the walk's first page was answered, by the service's clock (ISO). */
	startedAt: string;
	/** Which query the walk reads; a walk of another query (the filter was edited) starts afresh. */
	query: string;
}

export interface WalkSettings {
	pageSize: number;
	retry: RetryPolicy;
	/** Returns false once the poll should stop reading and leave the rest to the next poll. */
	withinBudget: () => boolean;
	/** What the walk does, in words, for error messages. */
	operation: string;
}

export interface WalkOutcome {
	/** When the walk began, by the service's clock (ms). */
	startedAt: number;
	/** Set when the walk is not finished: where the next poll continues. */
	resume?: WalkState;
}

/** A short fingerprint of a query (FNV-1a), to recognise the walk it belongs to. */
export function queryKey(qs: IDataObject): string {
	const text = JSON.stringify(
		Object.keys(qs)
			.sort()
			.map((key) => [key, qs[key]]),
	);
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(36);
}

/**
 * Whether the service refused a stored link as a link (an expired cursor, a base URL that moved):
 * a client error other than those about the credential or the rate. Reading the walk again from
 * its first page is the way on; following the link again would fail the same way for ever.
 */
export function refusesLink(error: unknown): boolean {
	const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
	return status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}

/**
 * When the service answered the first page, by its own clock: a second earlier than its `Date`
 * header says, as the header counts whole seconds. Without the header, this machine's clock less
 * a margin stands in (a service always sends one; a proxy might not).
 */
function walkStart(answeredAt: number | undefined): number {
	return answeredAt !== undefined ? answeredAt - 1000 : Date.now() - 5 * 60_000;
}

/**
 * Reads the walk of `qs` on `path` (continuing `previous` when it is a walk of the same query),
 * handing each page's records to `onRecords` (a page it fails on is read again next time), until
 * the last page or the budget. A request that
 * fails after this poll has read pages ends the poll early with what was read: the walk resumes
 * at the failed page next time. A failure before any page was read is thrown, except a stored link
 * the service refuses: the walk begins again (at the next poll, with the same window and start).
 */
export async function walk(
	context: IPollFunctions,
	path: string,
	qs: IDataObject,
	previous: WalkState | undefined,
	settings: WalkSettings,
	onRecords: (records: IDataObject[], startedAt: number) => void | Promise<void>,
): Promise<WalkOutcome> {
	const query = queryKey(qs);
	const continuing = previous?.query === query ? previous : undefined;
	let startedAt = continuing ? Date.parse(continuing.startedAt) : undefined;
	let next = continuing?.next;
	let pagesRead = 0;
	const pages = paginate.call(context, next ?? path, next ? undefined : qs, {
		operation: settings.operation,
		pageSize: settings.pageSize,
		retry: settings.retry,
		// a record modified while the walk reads comes again later: the trigger's memory tells
		repeatsExpected: true,
	});
	try {
		for await (const page of pages) {
			startedAt ??= walkStart(page.answeredAt);
			pagesRead++;
			await onRecords(page.records, startedAt);
			next = page.next;
			if (next && !settings.withinBudget()) break;
		}
	} catch (error) {
		if (pagesRead === 0 && continuing?.next !== undefined && refusesLink(error)) {
			context.logger.warn(
				`Stockroom Trigger: the service refused the link to continue ${settings.operation} (${(error as Error).message}); the next poll reads that walk again from its first page`,
			);
			return { startedAt: startedAt!, resume: { startedAt: continuing.startedAt, query } };
		}
		if (pagesRead === 0 || next === undefined)
			throw error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: new NodeOperationError(context.getNode(), error as Error);
		context.logger.warn(
			`Stockroom Trigger: ${settings.operation} stopped after ${pagesRead} page(s) and continues at the next poll: ${(error as Error).message}`,
		);
	}
	startedAt ??= walkStart(undefined);
	return next
		? { startedAt, resume: { next, startedAt: new Date(startedAt).toISOString(), query } }
		: { startedAt };
}
