import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { serviceDay, serviceInstant } from '../shared/dates';
import { all, compare, printFilter, type FilterNode } from '../shared/filter';
import { paginate } from '../shared/transport';
import type { ChangeEvent } from './events';
import { RecordMemory, UNIT_MS, type PackedMemory } from './memory';
import { Sweep, type SweepState } from './sweep';
import { walk, type WalkSettings, type WalkState } from './walk';

/**
 * Change events, read on the service's own clock. Each poll walks the records the service
 * modified since the previous walk began (less the lookback), in pages, and decides per record:
 * a change is a new version (Record Changed) or a watched value the record did not have when the
 * trigger last saw it (Asset Synced, Contract Agreement Dated). The values that clients write
 * (`lastSyncDtm`, `agreementDate`) are data, never a cursor: late, backdated and future values
 * are all just values. The filter decides which changes are emitted, not what a change is: value
 * events read every modified record and remember its value whether it matches or not, so a record
 * entering or leaving the filter, or a filter edited, is never a change by itself.
 *
 * State (in the workflow's static data): where the next walk starts, a walk the budget cut short,
 * and per record the instant last seen (the watched value for good; for Record Changed only the
 * versions inside the lookback). A poll that throws stores nothing; any older state is consistent
 * (it re-reads more and remembers what it emitted), so n8n saving static data only when a poll
 * emits loses nothing and repeats nothing.
 */
export interface ChangeState {
	/** Which event and resource this state belongs to; another key means start afresh. */
	key: string;
	/** The next walk reads records modified at or after this instant (service clock, ISO). */
	since: string;
	/** Just after the trigger started, by the service's clock: nothing before it is a change. */
	floor: string;
	/** id → instant last seen, per record (see the file comment). */
	memory: PackedMemory;
	/**
	 * 'all': the memory of a value event holds every record, matching the filter or not. States
	 * written before held the matching ones only; they learn the others in one whole walk.
	 */
	scope?: 'all';
	/** A walk the budget cut short. */
	walk?: ChangeWalk;
	/** Value events: the sweep that forgets deleted records (see sweep.ts). */
	sweep?: SweepState;
}

interface ChangeWalk extends WalkState {
	/** The first walk: it learns every matching record's value (value events, or Include). */
	baseline?: boolean;
	/** Include existing: the most recent existing records found so far. */
	candidates?: IDataObject[];
	/** A walk learning every record (see `scope`): the `since` of the state it began from. */
	relearnBefore?: string;
}

export interface ChangeSettings extends WalkSettings {
	event: ChangeEvent;
	/** The user's own filter, applied by the service. */
	filter?: FilterNode;
	/** How far before a walk's start the next walk reads again (service clock). */
	lookbackMs: number;
	firstRun: 'fromNow' | 'includeExisting';
	maxExisting: number;
	stateKey: string;
}

/**
 * A record's watched value as the memory keeps it, compared by what it means whatever its
 * spelling: a date (unit 'day') as its calendar day's midnight UTC, so it comes back from the
 * memory exactly; a date-time as its instant. Undefined when the record has none.
 */
function watchedValue(record: IDataObject, event: ChangeEvent): number | undefined {
	const value = record[event.field];
	if (event.unit === 'ms') return serviceInstant(value);
	const day = serviceDay(value);
	return day === undefined ? undefined : Date.parse(`${day}T00:00:00Z`);
}

const iso = (ms: number) => new Date(ms).toISOString();
const isoDay = (ms: number) => iso(ms).slice(0, 10);
/** Records read by each probe of "Fetch Test Event": enough to climb fast, small to send. */
const PROBE_PAGE_SIZE = 100;
const modifiedAt = (record: IDataObject) => serviceInstant(record.lastModifiedDtm) ?? 0;

/** Keeps the `limit` records with the largest watched value, most recent first. */
function keepMostRecent(records: IDataObject[], event: ChangeEvent, limit: number): IDataObject[] {
	return records
		.sort((a, b) => (watchedValue(b, event) ?? 0) - (watchedValue(a, event) ?? 0))
		.slice(0, limit);
}

/** The sweep's entry in the state to store, when there is one (its tally packed once). */
function sweepEntry(sweep: Sweep | undefined): Pick<ChangeState, 'sweep'> {
	const state = sweep?.result();
	return state ? { sweep: state } : {};
}

/**
 * One poll of a change event: returns what to emit and the state to store. Nothing is stored by
 * this function, so a poll that throws leaves the previous state as it was.
 */
export async function pollChanges(
	context: IPollFunctions,
	settings: ChangeSettings,
	previous: ChangeState | undefined,
): Promise<{ state: ChangeState; emit: IDataObject[] }> {
	const { event } = settings;
	// Record Changed "from now on" needs no baseline, only the service's time
	if (!previous && !event.watchesValue && settings.firstRun === 'fromNow') {
		return { state: await startFromNow(context, settings), emit: [] };
	}
	const memory = new RecordMemory(previous?.memory, event.unit);
	const baseline = !previous || previous.walk?.baseline === true;
	// a state from before the memory held every record learns the others in one whole walk
	const relearnBefore =
		previous && event.watchesValue && previous.scope !== 'all'
			? (previous.walk?.relearnBefore ?? previous.since)
			: undefined;
	const qs: IDataObject = {};
	// a value event reads every record, so a record entering the filter is known by its value
	if (settings.filter && !event.watchesValue) qs.filter = printFilter(settings.filter);
	if (previous && !baseline && relearnBefore === undefined) qs.since = previous.since;
	// a value event's memory holds every record for good: a sweep forgets the deleted ones once the
	// memory is whole (states saved before sweeps count from activation)
	const sweep =
		previous && event.watchesValue && !baseline && relearnBefore === undefined
			? new Sweep(previous.sweep, previous.floor, memory)
			: undefined;
	let candidates = baseline ? [...(previous?.walk?.candidates ?? [])] : [];
	const emit: IDataObject[] = [];
	let recordsRead = 0;

	const outcome = await walk(
		context,
		event.path,
		qs,
		previous?.walk,
		settings,
		async (records, startedAt) => {
			recordsRead += records.length;
			const fresh: IDataObject[] = [];
			const existing: IDataObject[] = [];
			const seen: Array<[string, number | undefined]> = [];
			for (const record of records) {
				const id = String(record.id);
				const instant = watchedValue(record, event);
				const known = memory.get(id);
				seen.push([id, instant]);
				if (instant === undefined || known === instant) continue;
				// a record the first walk finds unmodified since it began existed before the trigger
				if (baseline && modifiedAt(record) <= startedAt) {
					if (settings.firstRun === 'includeExisting') existing.push(record);
				} else if (
					relearnBefore === undefined ||
					known !== undefined ||
					modifiedAt(record) >= Date.parse(relearnBefore)
				) {
					fresh.push(record);
				}
			}
			// the filter decides which changes are emitted: asked before anything is remembered
			const matching =
				event.watchesValue && settings.filter && (fresh.length || existing.length)
					? await matchingIds(context, settings, records, qs.since as string | undefined)
					: undefined;
			const matches = (record: IDataObject) => !matching || matching.has(String(record.id));
			for (const [id, instant] of seen) {
				const known = memory.get(id);
				if (instant === undefined) {
					if (known !== undefined) sweep?.account(id, 'dropped');
					memory.delete(id);
				} else {
					if (known === undefined) sweep?.account(id, 'learned');
					memory.set(id, instant);
				}
			}
			const emitted = fresh.filter(matches);
			emit.push(...emitted);
			// a first walk read again (its link refused) may find an existing record changed since
			if (baseline && emitted.length) {
				const newer = new Set(emitted.map((record) => String(record.id)));
				candidates = candidates.filter((record) => !newer.has(String(record.id)));
			}
			candidates.push(...existing.filter(matches));
			if (candidates.length > settings.maxExisting * 2)
				candidates = keepMostRecent(candidates, event, settings.maxExisting);
		},
	);

	if (outcome.resume) {
		return {
			state: {
				key: settings.stateKey,
				since: previous?.since ?? iso(outcome.startedAt + 1),
				floor: previous?.floor ?? iso(outcome.startedAt + 1),
				memory: memory.pack(),
				...(event.watchesValue && relearnBefore === undefined ? { scope: 'all' as const } : {}),
				...sweepEntry(sweep),
				walk: {
					...outcome.resume,
					...(relearnBefore !== undefined ? { relearnBefore } : {}),
					...(baseline
						? {
								baseline: true,
								candidates: keepMostRecent(candidates, event, settings.maxExisting),
							}
						: {}),
				},
			},
			emit,
		};
	}
	// a sweep that runs or is due reads its next pages once the walk is whole
	if (sweep?.due(outcome.startedAt))
		await sweep.step(context, event.path, settings, outcome.startedAt);
	// a whole walk of less than a page that changed nothing keeps the state as it was, so an idle
	// poll writes nothing (n8n has nothing to commit); the few records it read are read again
	if (
		previous &&
		!sweep?.changed &&
		!baseline &&
		!previous.walk &&
		relearnBefore === undefined &&
		recordsRead < settings.pageSize &&
		memory.pack() === previous.memory
	)
		return { state: previous, emit };
	// a record modified at the very instant the first walk began is one it found as it was
	const floor = baseline ? outcome.startedAt + 1 : Date.parse(previous!.floor);
	const since = baseline ? floor : Math.max(outcome.startedAt - settings.lookbackMs, floor);
	// versions older than the next walk's start are never read again
	if (!event.watchesValue) memory.forgetBefore(since);
	return {
		state: {
			key: settings.stateKey,
			since: iso(since),
			floor: iso(floor),
			memory: memory.pack(),
			...(event.watchesValue ? { scope: 'all' as const } : {}),
			...sweepEntry(sweep),
		},
		emit: baseline ? [...keepMostRecent(candidates, event, settings.maxExisting), ...emit] : emit,
	};
}

/**
 * Which of a page's records match the user's filter now: the same window asked again with the
 * filter, narrowed to the page's ids (one request for a page, whatever it holds).
 */
async function matchingIds(
	context: IPollFunctions,
	settings: ChangeSettings,
	records: IDataObject[],
	since: string | undefined,
): Promise<Set<string>> {
	const ids = records.map((record) => String(record.id)).sort();
	const qs: IDataObject = {
		filter: printFilter(
			all(settings.filter, compare('id', 'ge', ids[0]), compare('id', 'le', ids[ids.length - 1]))!,
		),
	};
	if (since !== undefined) qs.since = since;
	const matching = new Set<string>();
	const pages = paginate.call(context, settings.event.path, qs, {
		operation: settings.operation,
		pageSize: settings.pageSize,
		retry: settings.retry,
	});
	for await (const page of pages)
		for (const record of page.records) matching.add(String(record.id));
	return matching;
}

/** Record Changed from now on: remember when the trigger started, by the service's clock. */
async function startFromNow(
	context: IPollFunctions,
	settings: ChangeSettings,
): Promise<ChangeState> {
	const { event } = settings;
	// an empty window: only the answer's Date header matters
	const outcome = await walk(
		context,
		event.path,
		{ since: iso(Date.now() + 86_400_000) },
		undefined,
		{ ...settings, pageSize: 1 },
		() => undefined,
	);
	const floor = iso(outcome.startedAt + 1);
	return {
		key: settings.stateKey,
		since: floor,
		floor,
		memory: new RecordMemory(undefined, event.unit).pack(),
	};
}

/**
 * "Fetch Test Event": the record with the latest watched value (Record Changed: the latest
 * modification), found without reading every recent record (the service cannot sort, and a fleet
 * sync can put every asset in the last hour). Each probe reads one small page of the records at or
 * after an instant; the largest value on it is a lower bound, an empty page an upper bound, so the
 * search gallops up and then halves: about 2 × log2(the span in units) pages at most, whatever the
 * fleet's size.
 */
export async function latestChange(
	context: IPollFunctions,
	settings: ChangeSettings,
): Promise<IDataObject | undefined> {
	const { event } = settings;
	const unit = UNIT_MS[event.unit];
	const topOf = async (from: number | undefined): Promise<IDataObject | undefined> => {
		const qs: IDataObject = {};
		const start = from === undefined ? undefined : event.unit === 'day' ? isoDay(from) : iso(from);
		// a recent value, or (Record Changed) a recent modification
		if (start !== undefined && !event.watchesValue) qs.since = start;
		const window =
			start !== undefined && event.watchesValue ? compare(event.field, 'ge', start) : undefined;
		const combined = all(settings.filter, window);
		if (combined) qs.filter = printFilter(combined);
		let top: IDataObject | undefined;
		let topValue = -Infinity;
		const pages = paginate.call(context, event.path, qs, {
			operation: settings.operation,
			pageSize: Math.min(settings.pageSize, PROBE_PAGE_SIZE),
			maxPages: 1,
			retry: settings.retry,
		});
		for await (const page of pages) {
			for (const record of page.records) {
				const value = watchedValue(record, event);
				if (value !== undefined && value > topValue) [top, topValue] = [record, value];
			}
		}
		return top;
	};

	const DAY = 86_400_000;
	let latest: IDataObject | undefined;
	// a first record, from the most recent window that has one
	for (const back of [DAY, 30 * DAY, 365 * DAY, undefined]) {
		latest = await topOf(back === undefined ? undefined : Date.now() - back);
		if (latest) break;
	}
	if (!latest) return undefined;
	let low = watchedValue(latest, event) as number;
	let empty = Infinity;
	let step = unit;
	while (low + unit < empty && settings.withinBudget()) {
		const from =
			empty === Infinity
				? low + step
				: low + Math.max(unit, Math.floor((empty - low) / 2 / unit) * unit);
		const top = await topOf(from);
		if (top) {
			latest = top;
			low = watchedValue(top, event) as number;
			step *= 2;
		} else {
			empty = from;
		}
	}
	return latest;
}
