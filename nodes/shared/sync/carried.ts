import type { IDataObject } from 'n8n-workflow';
import { WRITES, type PlanEntry } from './entries';
import type { RecordWords } from './output';

/** A plan as a dry run carries it, for Apply Sync Plan. */
export interface CarriedPlan {
	/** The form of this object, for a later version to read it or say it cannot. */
	carried: 1;
	resource: 'asset' | 'contract';
	planId: string;
	/** The key field the plan's records are named by. */
	keyField: string;
	/** Each changed field's name as the dry run's report gave it. */
	labels: Record<string, string>;
	scope: number;
	source: number;
	/** The plan's writes, each a Sync plan entry (`record` as the dry run read it). */
	entries: IDataObject[];
}

/** The writes of a plan, carried in a dry run's Summary or Report. */
export function carryPlan(
	resource: CarriedPlan['resource'],
	plan: readonly PlanEntry[],
	facts: { planId: string; scope: number; source: number },
	words: RecordWords,
): CarriedPlan {
	const entries = plan.filter((entry) => WRITES.includes(entry.action));
	const labels: Record<string, string> = {};
	for (const entry of entries)
		for (const field of Object.keys('changes' in entry ? entry.changes : {}))
			labels[field] ??= words.fieldLabel(field);
	return {
		carried: 1,
		resource,
		planId: facts.planId,
		keyField: words.keyField,
		labels,
		scope: facts.scope,
		source: facts.source,
		entries: entries as unknown as IDataObject[],
	};
}
