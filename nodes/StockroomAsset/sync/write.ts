import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import { findByField } from '../../shared/lookup';
import { runPooled, WRITES_AT_ONCE } from '../../shared/pool';
import { ASSETS_PATH } from '../../shared/resources';
import { keyForm } from '../../shared/sync/keys';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import type { PlanEntry } from '../../shared/sync/entries';
import { fieldLabel, type Ownership } from './source';

/** Keys as the outside lookup compares them: trimmed, case aside. */
const lookupForm = (value: string) => keyForm(value.trim());

/**
 * Keys the plan would write that belong to an asset outside the scope: a new asset's key or
 * External ID (a PUT would match and replace that asset, or duplicate it), or the corrected key
 * of an asset in scope. Such rows fail, and nothing is written to either asset. One batched
 * lookup per field; costs nothing when the plan creates and re-keys nothing.
 */
export async function outOfScope(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	own: Ownership,
	retry: RetryPolicy,
): Promise<PlanEntry[]> {
	const sought = (entry: PlanEntry): Array<[string, string]> => {
		if (entry.action === 'created') {
			const fields = own.key === 'externalId' ? ['externalId'] : [own.key, 'externalId'];
			return fields.flatMap((field) =>
				typeof entry.body[field] === 'string' ? [[field, entry.body[field] as string]] : [],
			);
		}
		if (entry.action === 'updated' && typeof entry.patch[own.key] === 'string')
			return [[own.key, entry.patch[own.key] as string]];
		return [];
	};
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
			await findByField(context, ASSETS_PATH, 'assets', field, values, {
				retry,
				itemIndex: 0,
				label: fieldLabel(field),
				form: lookupForm,
			}),
		);
	}
	return plan.map((entry) => {
		for (const [field, value] of sought(entry)) {
			// an asset in scope found again (the re-keyed one itself) is no conflict
			const [record] = (found.get(field)!.get(lookupForm(value)) ?? []).filter(
				(match) => entry.action !== 'updated' || match.id !== entry.record.id,
			);
			if (!record) continue;
			const whose =
				entry.action === 'updated'
					? ` (this row's, for the asset ${String(entry.record.id)} in scope, found by its External ID)`
					: '';
			const error = new Error(
				`An asset with ${fieldLabel(field)} "${value}"${whose} exists outside the scope (id ${String(record.id)}): it is left as it is${entry.action === 'updated' ? ', and so is the asset in scope' : ''}. Widen the scope to include it, or correct the source.`,
			);
			return {
				action: 'failed' as const,
				item: 'item' in entry ? entry.item : undefined,
				key: entry.key,
				error,
			};
		}
		return entry;
	});
}

/** The write a plan entry needs, if any. */
function writeOf(
	entry: PlanEntry,
): { method: 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: IDataObject; what: string } | null {
	switch (entry.action) {
		case 'created':
			return {
				method: 'PUT',
				path: ASSETS_PATH,
				body: entry.body,
				what: `create the asset "${entry.key}"`,
			};
		case 'updated':
		case 'retired':
			return {
				method: 'PATCH',
				path: `${ASSETS_PATH}/${String(entry.record.id)}`,
				body: entry.patch,
				what: `${entry.action === 'updated' ? 'update' : 'set the status of'} asset ${String(entry.record.id)}`,
			};
		case 'deleted':
			return {
				method: 'DELETE',
				path: `${ASSETS_PATH}/${String(entry.record.id)}`,
				what: `delete asset ${String(entry.record.id)}`,
			};
		default:
			return null;
	}
}

/**
 * Carries the plan out: one write per changed record (unchanged and missing ones cost nothing),
 * 8 at a time. A write that fails is a failed entry with Continue On Fail; otherwise no further
 * write starts and the run fails saying what was written before.
 */
export async function writePlan(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	{ retry, continueOnFail }: { retry: RetryPolicy; continueOnFail: boolean },
): Promise<PlanEntry[]> {
	const done = [...plan];
	const pending = plan.flatMap((entry, index) => (writeOf(entry) ? [index] : []));
	let written = 0;
	let fatal: Error | undefined;
	await runPooled(
		pending.length,
		WRITES_AT_ONCE,
		async (next) => {
			const index = pending[next];
			const entry = plan[index];
			const write = writeOf(entry)!;
			const item = 'item' in entry ? entry.item : undefined;
			try {
				const answer = await apiRequest.call(context, write.method, write.path, {
					body: write.body,
					operation: write.what,
					answer: write.method === 'DELETE' ? 'none' : 'record',
					itemIndex: item,
					retry,
				});
				if (entry.action === 'created')
					done[index] = { ...entry, body: { ...entry.body, id: answer.id } };
				written++;
			} catch (error) {
				if (!continueOnFail) {
					fatal ??= error as Error;
					return;
				}
				done[index] = {
					action: 'failed',
					item,
					key: entry.key,
					record: 'record' in entry ? entry.record : undefined,
					error: error as Error,
				};
			}
		},
		() => fatal !== undefined,
	);
	if (fatal) {
		const stopped =
			fatal instanceof NodeOperationError
				? fatal
				: new NodeOperationError(context.getNode(), fatal);
		stopped.description = [
			(fatal as { description?: string }).description,
			`Sync stopped after ${written} of ${pending.length} writes (the service confirmed them); run it again to finish: it picks up where this run stopped.`,
		]
			.filter(Boolean)
			.join('\n');
		throw stopped;
	}
	return done;
}
