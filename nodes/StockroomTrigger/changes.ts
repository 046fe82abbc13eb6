import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { all, compare, printFilter, type FilterNode } from '../shared/filter';
import { paginate, type ListPage, type RetryPolicy } from '../shared/transport';
import {
	forget,
	formatValue,
	instant,
	later,
	newChanges,
	valueOf,
	windowStart,
	type ChangeState,
} from './cursor';
import type { ChangeEvent } from './events';

export interface ChangeSettings {
	event: ChangeEvent;
	/** The user's own filter, combined with the window on the server side. */
	filter?: FilterNode;
	lookbackMs: number;
	firstRun: 'fromNow' | 'includeExisting';
	maxExisting: number;
	pageSize: number;
	retry: RetryPolicy;
	/** Returns false once the poll should stop reading and leave the rest to the next poll. */
	withinBudget: () => boolean;
	now: number;
	stateKey: string;
}

/** The first request of a walk over the records whose watched value is at or after `start`. */
function windowQuery(settings: ChangeSettings, start: string | undefined): IDataObject {
	const { event, filter } = settings;
	const qs: IDataObject = {};
	if (start !== undefined && event.viaSince) qs.since = start;
	const window =
		start !== undefined && !event.viaSince ? compare(event.field, 'ge', start) : undefined;
	const combined = all(filter, window);
	if (combined) qs.filter = printFilter(combined);
	return qs;
}

function pages(
	context: IPollFunctions,
	settings: ChangeSettings,
	start: string | undefined,
	resumeFrom?: string,
): AsyncGenerator<ListPage> {
	return paginate.call(
		context,
		resumeFrom ?? settings.event.path,
		resumeFrom ? undefined : windowQuery(settings, start),
		{
			operation: `check ${settings.event.path.includes('contracts') ? 'contracts' : 'assets'} for changes`,
			pageSize: settings.pageSize,
			retry: settings.retry,
		},
	);
}

/** The largest watched value among records. */
function largestValue(records: IDataObject[], field: string): string | undefined {
	return records.reduce<string | undefined>(
		(largest, record) => later(largest, valueOf(record, field)),
		undefined,
	);
}

/**
 * First activation. "From now on" remembers what is already inside the lookback window and
 * emits nothing; "include existing" emits the most recent records (up to the cap).
 */
async function firstRun(
	context: IPollFunctions,
	settings: ChangeSettings,
): Promise<{ state: ChangeState; emit: IDataObject[] }> {
	const { event, lookbackMs, now } = settings;
	const start =
		settings.firstRun === 'fromNow' ? formatValue(now - lookbackMs, event.kind) : undefined;
	const read: IDataObject[] = [];
	for await (const page of pages(context, settings, start)) {
		for (const record of page.records)
			if (valueOf(record, event.field) !== undefined) read.push(record);
		// a backlog too long for one poll: what was not read counts as existing
		if (!settings.withinBudget()) break;
	}
	const cursor = later(formatValue(now, event.kind), largestValue(read, event.field)) as string;
	const emit =
		settings.firstRun === 'includeExisting'
			? [...read]
					.sort((a, b) => instant(valueOf(b, event.field)!) - instant(valueOf(a, event.field)!))
					.slice(0, settings.maxExisting)
			: [];
	const seen: Record<string, string> = {};
	newChanges(read, event.field, seen);
	return {
		state: { key: settings.stateKey, cursor, seen: forget(seen, cursor, lookbackMs, event.kind) },
		emit,
	};
}

/**
 * One poll of a change event. Reads every page of the window (or continues a walk the budget cut
 * short), emits each change not emitted before, and returns the state to store. Nothing is stored
 * by this function: a poll that throws leaves the previous state as it was.
 */
export async function pollChanges(
	context: IPollFunctions,
	settings: ChangeSettings,
	previous: ChangeState | undefined,
): Promise<{ state: ChangeState; emit: IDataObject[] }> {
	if (!previous) return await firstRun(context, settings);
	const { event, lookbackMs } = settings;
	const seen = { ...previous.seen };
	const start =
		previous.resume?.windowStart ?? windowStart(previous.cursor, lookbackMs, event.kind);
	let largest = previous.resume?.largest;
	let resume: ChangeState['resume'];
	const emit: IDataObject[] = [];
	for await (const page of pages(context, settings, start, previous.resume?.next)) {
		const fresh = newChanges(page.records, event.field, seen);
		emit.push(...fresh);
		largest = later(largest, largestValue(fresh, event.field));
		if (page.next && !settings.withinBudget()) {
			// the walk continues next poll from this page's `next` link; the cursor waits until it ends
			resume = { next: page.next, windowStart: start, largest: largest ?? previous.cursor };
			break;
		}
	}
	const cursor = resume ? previous.cursor : (later(previous.cursor, largest) as string);
	return {
		state: {
			key: settings.stateKey,
			cursor,
			seen: resume ? seen : forget(seen, cursor, lookbackMs, event.kind),
			...(resume ? { resume } : {}),
		},
		emit,
	};
}

/** "Fetch Test Event": the most recent matching record, looking further back until one is found. */
export async function latestChange(
	context: IPollFunctions,
	settings: ChangeSettings,
): Promise<IDataObject | undefined> {
	const { event, now } = settings;
	const DAY = 86_400_000;
	for (const back of [DAY, 30 * DAY, 365 * DAY, undefined]) {
		const start = back === undefined ? undefined : formatValue(now - back, event.kind);
		let latest: IDataObject | undefined;
		for await (const page of pages(context, settings, start)) {
			for (const record of page.records) {
				const value = valueOf(record, event.field);
				if (
					value !== undefined &&
					(latest === undefined || instant(value) > instant(valueOf(latest, event.field)!))
				)
					latest = record;
			}
			if (!settings.withinBudget()) break;
		}
		if (latest) return latest;
	}
	return undefined;
}
