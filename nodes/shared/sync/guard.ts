import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import type { PlanEntry, SourceRow } from './plan';

export const DEFAULT_MAX_REMOVAL_PERCENT = 10;

/**
 * An input with no usable row against a scope that holds assets is refused unless allowed: a
 * source that returned nothing is far more often a failed export than an empty fleet.
 */
export function refuseEmptySource(
	context: IExecuteFunctions,
	rows: SourceRow[],
	scopeSize: number,
	allowed: boolean,
): void {
	if (allowed || !scopeSize || rows.some((row) => row.key !== undefined)) return;
	throw new NodeOperationError(
		context.getNode(),
		`Sync refused: the input has no item with a key, and the scope holds ${scopeSize} assets`,
		{
			description:
				'Nothing was written. Every asset in scope would be handled as missing; an empty input is usually a source that failed. If the source really is empty, turn on Allow Empty Source in Options.',
		},
	);
}

/**
 * The guard: a run that would retire or delete more assets than Max Removals allows (a share
 * of the scope, and a count when one is set) writes nothing and fails saying how many and why.
 */
export function checkGuard(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	scopeSize: number,
	options: IDataObject,
): void {
	const retired = plan.filter((entry) => entry.action === 'retired').length;
	const deleted = plan.filter((entry) => entry.action === 'deleted').length;
	const removals = retired + deleted;
	if (!removals) return;
	const percent = Number(options.maxRemovalPercent ?? DEFAULT_MAX_REMOVAL_PERCENT);
	const count = Number(options.maxRemovals ?? 0);
	const byShare = Math.floor((scopeSize * percent) / 100);
	const limit = count > 0 ? Math.min(byShare, count) : byShare;
	if (removals <= limit) return;
	const what = [retired && `retire ${retired}`, deleted && `delete ${deleted}`]
		.filter(Boolean)
		.join(' and ');
	const share = Math.round((removals / scopeSize) * 1000) / 10;
	const limits = [`${percent} % of the scope is ${byShare}`, count > 0 && `the count is ${count}`]
		.filter(Boolean)
		.join(', ');
	throw new NodeOperationError(
		context.getNode(),
		`Sync stopped by its guard: it would ${what} of the ${scopeSize} assets in scope (${share} %), more than Max Removals allows (${limit}: ${limits})`,
		{
			description:
				'Nothing was written. A source that lost rows (a partial export) looks like this. Check the source; if the removals are meant, raise Max Removals (%) or Max Removals (Count) in Options.',
		},
	);
}
