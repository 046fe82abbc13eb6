import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { findByField } from '../lookup';
import type { RetryPolicy } from '../transport';
import { fingerprint, type PlanEntry } from './entries';
import { withArticle } from './identity';
import { keyForm } from './keys';

/** Keys as the outside lookup compares them: trimmed, case aside. */
const lookupForm = (value: string) => keyForm(value.trim());

/** Where the records live and how they are named, for the lookup and its messages. */
export interface OutsideLookup {
	path: string;
	noun: string;
	nouns: string;
	label: (field: string) => string;
	/** The keys an entry would write that another record may hold: [field, value]. */
	sought: (entry: PlanEntry) => Array<[string, string]>;
	retry: RetryPolicy;
}

/**
 * Keys the plan would write that belong to a record outside the scope: a new record's key or
 * External ID (a PUT would match and replace that record, or duplicate it), or the corrected key
 * of a record in scope. Such rows fail, and nothing is written to either record. One batched
 * lookup per field; costs nothing when the plan creates and re-keys nothing.
 */
export async function outOfScope(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	{ path, noun, nouns, label, sought, retry }: OutsideLookup,
): Promise<PlanEntry[]> {
	const wanted = new Map<string, string[]>();
	for (const entry of plan) {
		for (const [field, value] of sought(entry)) {
			const values = wanted.get(field);
			if (values) values.push(value);
			else wanted.set(field, [value]);
		}
	}
	if (!wanted.size) return plan;
	const found = new Map<string, Map<string, IDataObject[]>>();
	for (const [field, values] of wanted) {
		found.set(
			field,
			await findByField(context, path, nouns, field, values, {
				retry,
				itemIndex: 0,
				label: label(field),
				form: lookupForm,
			}),
		);
	}
	const aNoun = withArticle(noun);
	return plan.map((entry) => {
		for (const [field, value] of sought(entry)) {
			// a record in scope found again (the re-keyed one itself) is no conflict
			const [record] = (found.get(field)!.get(lookupForm(value)) ?? []).filter(
				(match) => entry.action !== 'updated' || match.id !== entry.record.id,
			);
			if (!record) continue;
			const whose =
				entry.action === 'updated'
					? ` (this row's, for the ${noun} ${String(entry.record.id)} in scope, found by its External ID)`
					: '';
			const error = new Error(
				`${aNoun[0].toUpperCase()}${aNoun.slice(1)} with ${label(field)} "${value}"${whose} exists outside the scope (id ${String(record.id)}): it is left as it is${entry.action === 'updated' ? `, and so is the ${noun} in scope` : ''}. Widen the scope to include it, or correct the source.`,
			);
			return {
				action: 'failed' as const,
				item: 'item' in entry ? entry.item : undefined,
				...('items' in entry && entry.items ? { items: entry.items } : {}),
				key: entry.key,
				error,
				row: fingerprint('changes' in entry ? entry.changes : entry.key),
			};
		}
		return entry;
	});
}
