import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { all, any, compare, not, present, printFilter, type FilterNode } from '../shared/filter';
import { CONTRACTS_PATH } from '../shared/resources';
import { paginate, type RetryPolicy } from '../shared/transport';

export interface RenewalState {
	key: string;
	/** id → renewal date (YYYY-MM-DD) of every reminder emitted, until that date has passed. */
	emitted: Record<string, string>;
}

export interface RenewalSettings {
	filter?: FilterNode;
	/** Emit when the notice deadline is at most this many days away (or already passed). */
	withinDays: number;
	/** Today in the workflow's time zone, YYYY-MM-DD. */
	today: string;
	firstRun: 'fromNow' | 'includeExisting';
	maxExisting: number;
	pageSize: number;
	retry: RetryPolicy;
	withinBudget: () => boolean;
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
	const renewal =
		typeof contract.renewalDate === 'string' ? contract.renewalDate.slice(0, 10) : undefined;
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

async function readDue(context: IPollFunctions, settings: RenewalSettings): Promise<IDataObject[]> {
	const read: IDataObject[] = [];
	const pages = paginate.call(
		context,
		CONTRACTS_PATH,
		{ filter: printFilter(renewalFilter(settings)) },
		{
			operation: 'check contracts for renewal notices',
			pageSize: settings.pageSize,
			retry: settings.retry,
		},
	);
	for await (const page of pages) {
		read.push(...page.records);
		// what is not read now is read by the next poll; reminders are remembered, not a cursor
		if (!settings.withinBudget()) break;
	}
	return dueContracts(read, settings).sort((a, b) =>
		String(a.noticeDeadline).localeCompare(String(b.noticeDeadline)),
	);
}

/** One poll: every due contract not reminded of for its current renewal date. */
export async function pollRenewals(
	context: IPollFunctions,
	settings: RenewalSettings,
	previous: RenewalState | undefined,
): Promise<{ state: RenewalState; emit: IDataObject[] }> {
	const due = await readDue(context, settings);
	const emitted: Record<string, string> = {};
	for (const [id, renewal] of Object.entries(previous?.emitted ?? {})) {
		if (renewal >= settings.today) emitted[id] = renewal;
	}
	const fresh = due.filter(
		(contract) => emitted[String(contract.id)] !== String(contract.renewalDate).slice(0, 10),
	);
	for (const contract of fresh)
		emitted[String(contract.id)] = String(contract.renewalDate).slice(0, 10);
	let emit = fresh;
	if (!previous)
		emit = settings.firstRun === 'includeExisting' ? fresh.slice(0, settings.maxExisting) : [];
	return { state: { key: settings.stateKey, emitted }, emit };
}

/** "Fetch Test Event": the contract whose notice deadline comes first. */
export async function firstDue(
	context: IPollFunctions,
	settings: RenewalSettings,
): Promise<IDataObject | undefined> {
	return (await readDue(context, settings))[0];
}
