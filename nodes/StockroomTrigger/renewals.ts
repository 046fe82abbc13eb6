import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { serviceDay } from '../shared/dates';
import { all, any, compare, not, present, printFilter, type FilterNode } from '../shared/filter';
import { CONTRACTS_PATH } from '../shared/resources';
import { paginate } from '../shared/transport';
import { RecordMemory, type PackedMemory } from './memory';
import { walk, type WalkSettings, type WalkState } from './walk';

/**
 * Renewal notices: each poll continues a walk over the contracts whose notice deadline may be near
 * (a walk the budget cut short resumes where it stopped, so every contract is reached however
 * many there are) and emits each due contract once per renewal date and notice period: a changed
 * notice period moves the deadline, so it is a new reminder.
 */
export interface RenewalState {
	key: string;
	/**
	 * id → what each reminder sent (or, at first run, already due) was for, until its renewal date
	 * has passed: the renewal date plus the notice days as milliseconds (see `reminderOf`). States
	 * written before counted whole days (unit 'day') and held the renewal date alone.
	 */
	reminded: PackedMemory;
	/** The first walk is still going on: what it finds due existed before the trigger. */
	firstWalk?: boolean;
	/** Contracts emitted by the first walk (with Include existing), against Max Existing Records. */
	existingEmitted?: number;
	/** A walk the budget cut short, with the day it began (its filter's "today"). */
	walk?: WalkState & { today: string };
}

export interface RenewalSettings extends WalkSettings {
	filter?: FilterNode;
	/** Emit when the notice deadline is at most this many days away (or already passed). */
	withinDays: number;
	/** Today in the workflow's time zone, YYYY-MM-DD. */
	today: string;
	firstRun: 'fromNow' | 'includeExisting';
	maxExisting: number;
	stateKey: string;
}

const DAY_MS = 86_400_000;

/** Notice periods are grouped so the server can narrow renewal dates per group (no arithmetic in filters). */
const NOTICE_GROUPS = [0, 7, 14, 30, 60, 90, 180, 365, 730];

export function addDays(date: string, days: number): string {
	return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The last day to give notice: the renewal date minus the notice days. */
export function noticeDeadline(contract: IDataObject): string | undefined {
	const renewal = serviceDay(contract.renewalDate);
	if (!renewal) return undefined;
	const days =
		typeof contract.terminationNoticeDays === 'number' ? contract.terminationNoticeDays : 0;
	return addDays(renewal, -days);
}

/**
 * Contracts renewing from today on whose deadline may be within the window: for each group of
 * notice periods [low, high), a renewal date at most `withinDays + high` days away. A superset of
 * the due contracts, refined locally with the exact deadline.
 */
export function renewalFilter(
	settings: Pick<RenewalSettings, 'filter' | 'withinDays' | 'today'>,
): FilterNode {
	const { today, withinDays } = settings;
	const byGroup = NOTICE_GROUPS.map((low, index) => {
		const high = NOTICE_GROUPS[index + 1];
		return high === undefined
			? compare('terminationNoticeDays', 'ge', low)
			: all(
					compare('terminationNoticeDays', 'ge', low),
					compare('terminationNoticeDays', 'lt', high),
					compare('renewalDate', 'le', addDays(today, withinDays + high)),
				);
	});
	const withoutNotice = all(
		not(present('terminationNoticeDays')),
		compare('renewalDate', 'le', addDays(today, withinDays)),
	);
	return all(
		settings.filter,
		compare('renewalDate', 'ge', today),
		any(withoutNotice, ...byGroup),
	) as FilterNode;
}

/** Contracts whose notice deadline is due, with the deadline and the days left added. */
export function dueContracts(
	contracts: IDataObject[],
	settings: Pick<RenewalSettings, 'withinDays' | 'today'>,
): IDataObject[] {
	const last = addDays(settings.today, settings.withinDays);
	const today = Date.parse(`${settings.today}T00:00:00Z`);
	return contracts.flatMap((contract) => {
		const deadline = noticeDeadline(contract);
		if (!deadline || deadline > last) return [];
		return [
			{
				...contract,
				noticeDeadline: deadline,
				daysUntilNoticeDeadline: Math.round((Date.parse(`${deadline}T00:00:00Z`) - today) / DAY_MS),
			},
		];
	});
}

const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`);
/** The renewal date's midnight (UTC) of a due contract (which has one), whatever its spelling. */
const renewalOf = (contract: IDataObject) => dayOf(serviceDay(contract.renewalDate)!);

/**
 * A reminder, as one number: the renewal date's midnight plus the notice days as milliseconds
 * (far less than a day), so it sorts with its renewal date and is forgotten when that passes.
 */
const reminderOf = (contract: IDataObject): number =>
	renewalOf(contract) +
	(typeof contract.terminationNoticeDays === 'number' ? contract.terminationNoticeDays : 0);

/** One poll: continues (or starts) a walk and emits every due contract not reminded of for its current renewal date. */
export async function pollRenewals(
	context: IPollFunctions,
	settings: RenewalSettings,
	previous: RenewalState | undefined,
): Promise<{ state: RenewalState; emit: IDataObject[] }> {
	const reminded = new RecordMemory(previous?.reminded, 'ms');
	// a reminder of a state written before names the renewal date alone: it stands for any notice period
	const legacy = previous?.reminded.unit === 'day';
	reminded.forgetBefore(dayOf(settings.today));
	const firstWalk = !previous || previous.firstWalk === true;
	let existingEmitted = previous?.existingEmitted ?? 0;
	// a walk in progress keeps the day it began, so its filter (and its next links) stay the same
	const today = previous?.walk?.today ?? settings.today;
	const emit: IDataObject[] = [];
	const outcome = await walk(
		context,
		CONTRACTS_PATH,
		{ filter: printFilter(renewalFilter({ ...settings, today })) },
		previous?.walk,
		settings,
		(records) => {
			for (const contract of dueContracts(records, settings)) {
				const reminder = reminderOf(contract);
				const known = reminded.get(String(contract.id));
				reminded.set(String(contract.id), reminder);
				if (known === reminder || (legacy && known === renewalOf(contract))) continue;
				if (firstWalk) {
					if (settings.firstRun !== 'includeExisting' || existingEmitted >= settings.maxExisting)
						continue;
					existingEmitted++;
				}
				emit.push(contract);
			}
		},
	);
	const state: RenewalState = { key: settings.stateKey, reminded: reminded.pack() };
	if (outcome.resume) {
		state.walk = { ...outcome.resume, today };
		if (firstWalk) Object.assign(state, { firstWalk: true, existingEmitted });
	}
	// a whole walk that reminded of nothing new keeps the state as it was (an idle poll writes nothing)
	const unchanged =
		previous && !previous.walk && !state.walk && !firstWalk && state.reminded === previous.reminded;
	return {
		state: unchanged ? previous : state,
		emit: emit.sort((a, b) => String(a.noticeDeadline).localeCompare(String(b.noticeDeadline))),
	};
}

/** "Fetch Test Event": the contract whose notice deadline comes first. */
export async function firstDue(
	context: IPollFunctions,
	settings: RenewalSettings,
): Promise<IDataObject | undefined> {
	const due: IDataObject[] = [];
	const pages = paginate.call(
		context,
		CONTRACTS_PATH,
		{ filter: printFilter(renewalFilter(settings)) },
		{ operation: settings.operation, pageSize: settings.pageSize, retry: settings.retry },
	);
	for await (const page of pages) {
		due.push(...dueContracts(page.records, settings));
		if (!settings.withinBudget()) break;
	}
	return due.sort((a, b) => String(a.noticeDeadline).localeCompare(String(b.noticeDeadline)))[0];
}
