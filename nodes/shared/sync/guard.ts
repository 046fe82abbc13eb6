import type { INode, INodeProperties } from 'n8n-workflow';
import { hasValue } from '../schema/values';
import type { PlanEntry } from './entries';
import { SyncRefusal, type RefusalKind } from './refusal';

export const DEFAULT_MAX_REMOVAL_PERCENT = 10;
export const DEFAULT_MAX_CLEAR_PERCENT = 10;
export const DEFAULT_MAX_FAILED_PERCENT = 10;

/** The guard's limits, as the form sets them. */
export interface GuardLimits {
	/** The most records one run may remove, as a share of the scope. */
	removalPercent: number;
	/** The most records one run may remove (0: no limit by count). */
	removalCount: number;
	/** The most records one run may clear one field on, as a share of the scope. */
	clearPercent: number;
	/** The most input rows one run may fail on, as a share of the input. */
	failedPercent: number;
}

/**
 * The guard's parameters, on the form itself so that its limits and defaults show. `removal` says
 * how a run removes a record; with `lineItems`, the share applies to the line items in scope too.
 */
export function guardProperties(
	nouns: string,
	removal = 'retire or delete',
	lineItems = false,
): INodeProperties[] {
	const alsoLines = lineItems
		? ', and the most line items it may remove, as a share of the line items in scope'
		: '';
	return [
		{
			displayName: 'Max Removals (%)',
			name: 'maxRemovalPercent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: DEFAULT_MAX_REMOVAL_PERCENT,
			description: `The most ${nouns} one run may ${removal}, as a share of the scope${alsoLines}; above it the run writes nothing and fails (a Dry Run shows the plan and says so)`,
		},
		{
			displayName: 'Max Removals (Count)',
			name: 'maxRemovals',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description: `The most ${nouns} one run may ${removal}, as a number (0: no limit by count, the share still applies)`,
		},
		{
			displayName: 'Max Cleared per Field (%)',
			name: 'maxClearPercent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: DEFAULT_MAX_CLEAR_PERCENT,
			description: `The most ${nouns} one run may empty a synced field on, as a share of the scope; above it the run writes nothing and fails (a column the export lost clears it everywhere)`,
		},
		{
			displayName: 'Max Failed Rows (%)',
			name: 'maxFailedPercent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: DEFAULT_MAX_FAILED_PERCENT,
			description:
				'The most input rows one run may refuse or fail (a placeholder key, a bad value), as a share of the input; above it the run writes nothing and fails naming them, so a night on which every row fails is a failed night. Below it the run goes on: the failed rows leave as error items and the report lists them.',
		},
	];
}

/** Reads the limits; a value that is not a number in range fails the run naming the parameter. */
export function readGuardLimits(
	node: INode,
	get: (name: string, fallback: number) => unknown,
): GuardLimits {
	const read = (name: string, label: string, fallback: number, max?: number) => {
		const raw = get(name, fallback);
		const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
		if (
			typeof value !== 'number' ||
			!Number.isFinite(value) ||
			value < 0 ||
			(max !== undefined && value > max)
		) {
			throw new SyncRefusal(
				node,
				'settings',
				`${label} must be a number from 0${max === undefined ? ' up' : ` to ${max}`}, got ${JSON.stringify(raw)}`,
				`Nothing was written. Correct the node's ${label} parameter.`,
			);
		}
		return value;
	};
	return {
		removalPercent: read('maxRemovalPercent', 'Max Removals (%)', DEFAULT_MAX_REMOVAL_PERCENT, 100),
		removalCount: read('maxRemovals', 'Max Removals (Count)', 0),
		clearPercent: read(
			'maxClearPercent',
			'Max Cleared per Field (%)',
			DEFAULT_MAX_CLEAR_PERCENT,
			100,
		),
		failedPercent: read('maxFailedPercent', 'Max Failed Rows (%)', DEFAULT_MAX_FAILED_PERCENT, 100),
	};
}

/** A reason the run must not write: which kind, its message and what to do. */
export interface Refusal {
	kind: Extract<RefusalKind, 'guard' | 'rows'>;
	message: string;
	description: string;
}

/** What the guard needs of a plan. */
export interface GuardedPlan {
	removed: { retired: number; deleted: number };
	/** Records back in the source whose status the plan sets back from the Missing Records status. */
	restored?: number;
	/** Per field label, how many records the plan empties it on. */
	cleared: Map<string, number>;
	/**
	 * Line items the plan removes from records it updates, of those the records in scope have,
	 * and the first few removed, named "record: line".
	 */
	lineItems?: { removed: number; inScope: number; named: string[] };
	/** Input rows the plan fails (refused or invalid), of the rows given, the first few named. */
	failedRows?: { failed: number; rows: number; named: string[] };
}

/** The rows a plan fails, counted by input item (a contract's rows each count), a few named. */
export function countFailedRows(
	entries: readonly PlanEntry[],
	rows: number,
): NonNullable<GuardedPlan['failedRows']> {
	let failed = 0;
	const named: string[] = [];
	for (const entry of entries) {
		if (entry.action !== 'failed' || entry.item === undefined) continue;
		failed += entry.items?.length ?? 1;
		if (named.length < 5) named.push(rowName(entry));
	}
	return { failed, rows, named };
}

/** A failed row as people know it: its name and key, and where it is ("KIOSK-LOBBY (SN-1), item 26"). */
export function rowName(entry: Extract<PlanEntry, { action: 'failed' }>): string {
	const said = [entry.name, entry.key && (entry.name ? `(${entry.key})` : entry.key)]
		.filter(Boolean)
		.join(' ');
	return `${said ? `${said}, ` : ''}item ${entry.item ?? '(none)'}`;
}

/**
 * Counts one record's clears: each field label whose `before` had a value and `after` has none,
 * once per record (a contract's line items share their fields' labels), with `more` labels the
 * caller found cleared otherwise. Gives the record's cleared labels.
 */
export function countClears(
	cleared: Map<string, number>,
	changes: Record<string, { before: unknown; after: unknown }>,
	label: (field: string) => string,
	more: Iterable<string> = [],
): string[] {
	const labels = new Set<string>(more);
	for (const [field, { before, after }] of Object.entries(changes))
		if (hasValue(before) && !hasValue(after)) labels.add(label(field));
	for (const name of labels) cleared.set(name, (cleared.get(name) ?? 0) + 1);
	return [...labels];
}

const share = (part: number, whole: number) => Math.round((part / whole) * 1000) / 10;

/**
 * The guard: a run that would retire or delete more records than Max Removals allows (a share of
 * the scope, and a count when one is set), or empty one field on more than Max Cleared per
 * Field allows, must not write. Gives each reason; none when the run may write.
 */
export function guardRefusals(
	plan: GuardedPlan,
	scopeSize: number,
	limits: GuardLimits,
	nouns: string,
): Refusal[] {
	const refusals: Refusal[] = [];
	const { retired, deleted } = plan.removed;
	const removals = retired + deleted;
	const byShare = Math.floor((scopeSize * limits.removalPercent) / 100);
	const limit = limits.removalCount > 0 ? Math.min(byShare, limits.removalCount) : byShare;
	if (removals > limit) {
		const what = [retired && `retire ${retired}`, deleted && `delete ${deleted}`]
			.filter(Boolean)
			.join(' and ');
		const limitsSaid = [
			`${limits.removalPercent} % of the scope is ${byShare}`,
			limits.removalCount > 0 && `the count is ${limits.removalCount}`,
		]
			.filter(Boolean)
			.join(', ');
		refusals.push({
			kind: 'guard',
			message: `Sync stopped by its guard: it would ${what} of the ${scopeSize} ${nouns} in scope (${share(removals, scopeSize)} %), more than Max Removals allows (${limit}: ${limitsSaid})`,
			description:
				'A source that lost rows (a partial export) looks like this. Check the source; if the removals are meant, raise Max Removals (%) or Max Removals (Count).',
		});
	}
	const restored = plan.restored ?? 0;
	if (restored > limit)
		refusals.push({
			kind: 'guard',
			message: `Sync stopped by its guard: it would restore ${restored} of the ${scopeSize} ${nouns} in scope (${share(restored, scopeSize)} %) from the Missing Records status, more than Max Removals allows (${limit}), which caps restorations too`,
			description:
				'A source that suddenly has many records again that were missing (an export that had failed, a scope changed) looks like this. Check the source; if the restorations are meant, raise Max Removals (%) or Max Removals (Count) for this run, or set Returning Records to Leave As It Is.',
		});
	if (plan.lineItems) {
		const { removed, inScope, named } = plan.lineItems;
		const lineLimit = Math.floor((inScope * limits.removalPercent) / 100);
		const which = named.length
			? `: ${named.join(', ')}${removed > named.length ? ` and ${removed - named.length} more` : ''}`
			: '';
		if (removed > lineLimit)
			refusals.push({
				kind: 'guard',
				message: `Sync stopped by its guard: it would remove ${removed} of the ${inScope} line items of the ${nouns} in scope (${share(removed, inScope)} %), more than Max Removals allows (${lineLimit}: ${limits.removalPercent} % of them)${which}`,
				description:
					'A source that lost rows (a partial export, a filter on the export) looks like this. Check the source; if the removals are meant, raise Max Removals (%).',
			});
	}
	if (plan.failedRows) {
		const { failed, rows, named } = plan.failedRows;
		const rowLimit = Math.floor((rows * limits.failedPercent) / 100);
		if (failed > rowLimit)
			refusals.push({
				kind: 'rows',
				message: `Sync stopped by its guard: ${failed} of the ${rows} input rows failed (${share(failed, rows)} %), more than Max Failed Rows allows (${rowLimit}: ${limits.failedPercent} % of the rows): ${named.join('; ')}${failed > named.length ? `; and ${failed - named.length} more` : ''}`,
				description:
					'A night on which many rows fail (a date format that changed, a column of placeholders) writes nothing. Each failed row says why (with On Error: Continue, an error item each): fix the export, or raise Max Failed Rows (%).',
			});
	}
	const clearLimit = Math.floor((scopeSize * limits.clearPercent) / 100);
	for (const [field, count] of plan.cleared) {
		if (count <= clearLimit) continue;
		refusals.push({
			kind: 'guard',
			message: `Sync stopped by its guard: it would empty ${field} on ${count} of the ${scopeSize} ${nouns} in scope (${share(count, scopeSize)} %), more than Max Cleared per Field allows (${clearLimit}: ${limits.clearPercent} % of the scope)`,
			description:
				'A column the export lost, or one that came back empty, looks like this. Check the source; if the clearing is meant, raise Max Cleared per Field (%).',
		});
	}
	return refusals;
}

/** Throws the first refusal as the run's error, saying nothing was written. */
export function throwRefusal(node: INode, refusals: readonly Refusal[]): void {
	if (!refusals.length) return;
	const [first, ...more] = refusals;
	throw new SyncRefusal(
		node,
		first.kind,
		first.message,
		[
			`Nothing was written. ${first.description}`,
			...more.map((refusal) => `Also: ${refusal.message}.`),
		].join('\n'),
	);
}

/**
 * An input with no row against a scope that holds records is refused unless allowed: a source
 * that returned nothing is far more often a failed export than an empty fleet.
 */
export function refuseEmptySource(
	node: INode,
	rows: number,
	scopeSize: number,
	allowed: boolean,
	nouns: string,
): void {
	if (allowed || !scopeSize || rows > 0) return;
	throw new SyncRefusal(
		node,
		'empty',
		`Sync refused: the input is empty, and the scope holds ${scopeSize} ${nouns}`,
		`Nothing was written. Every one of them would be handled as missing; an empty input is usually a source that failed. If the source really is empty, turn on Allow Empty Source.`,
	);
}

/** A scope that gives no filter would own every record: refused unless None says so. */
export function refuseEmptyScope(node: INode, mode: unknown, hasFilter: boolean, noun: string) {
	if (mode === 'none' || hasFilter) return;
	throw new SyncRefusal(
		node,
		'scope',
		`Sync refused: the scope is empty (${mode === 'manual' ? 'Build Manually has no condition' : 'the Filter Expression is empty'})`,
		`Nothing was written. A scope with no filter would own every ${noun}, and handle those the source does not have as missing. Give the scope a condition, or choose Scope: None to own every ${noun}.`,
	);
}
