import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { findByField } from '../../shared/lookup';
import { ASSETS_PATH } from '../../shared/resources';
import { assetSchema } from '../../shared/schema/asset';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import type { Ownership, PlanEntry } from './plan';

/** Writes in flight at once, as Create or Update sends them. */
const CONCURRENCY = 8;

const label = (name: string) => assetSchema.fields[name]?.displayName ?? name;

/**
 * Assets the plan would create but that exist outside the scope (same key, or same External
 * ID, which a PUT would match and replace): failed rows, never written. One batched lookup per
 * key field; costs nothing when nothing is created.
 */
export async function outOfScope(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	own: Ownership,
	retry: RetryPolicy,
): Promise<PlanEntry[]> {
	const creations = plan.filter((entry) => entry.action === 'created');
	if (!creations.length) return plan;
	const fields = own.key === 'externalId' ? ['externalId'] : [own.key, 'externalId'];
	const found = new Map<string, IDataObject>();
	for (const field of fields) {
		const values = creations
			.map((entry) => entry.body[field])
			.filter((value): value is string => typeof value === 'string');
		const matches = await findByField(context, ASSETS_PATH, 'assets', field, values, {
			retry,
			itemIndex: 0,
			label: label(field),
		});
		for (const [value, records] of matches) found.set(`${field}\u0000${value}`, records[0]);
	}
	return plan.map((entry) => {
		if (entry.action !== 'created') return entry;
		for (const field of fields) {
			const record = found.get(`${field}\u0000${String(entry.body[field])}`);
			if (!record) continue;
			const error = new Error(
				`An asset with ${label(field)} "${String(entry.body[field])}" exists outside the scope (id ${String(record.id)}): it is left as it is. Widen the scope to include it, or correct the source.`,
			);
			return { action: 'failed', item: entry.item, key: entry.key, error };
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
 * several at a time. A write that fails is a failed entry with Continue On Fail; otherwise no
 * further write starts and the run fails saying what was written before.
 */
export async function writePlan(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	{ retry, continueOnFail }: { retry: RetryPolicy; continueOnFail: boolean },
): Promise<PlanEntry[]> {
	const done = [...plan];
	const pending = plan.flatMap((entry, index) => (writeOf(entry) ? [index] : []));
	let next = 0;
	let written = 0;
	let fatal: Error | undefined;
	const work = async () => {
		while (next < pending.length && !fatal) {
			const index = pending[next++];
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
					continue;
				}
				done[index] = {
					action: 'failed',
					item,
					key: entry.key,
					record: 'record' in entry ? entry.record : undefined,
					error: error as Error,
				};
			}
		}
	};
	// the first write alone: n8n fetches a missing OAuth2 token per call
	if (pending.length) await work();
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, pending.length) }, work));
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

const ACTIONS = [
	'created',
	'updated',
	'unchanged',
	'missing',
	'retired',
	'deleted',
	'failed',
] as const;

/** The output items: one per record, or a summary. */
export const syncOutput = {
	record(
		entry: Exclude<PlanEntry, { action: 'failed' }>,
		own: Ownership,
		dryRun: boolean,
	): INodeExecutionData {
		const record = entry.action === 'created' ? entry.body : entry.record;
		const json: IDataObject = {
			action: entry.action,
			...(record.id === undefined ? {} : { id: record.id as string }),
			[own.key]: (entry.key ?? record[own.key] ?? null) as string,
		};
		if ('changes' in entry) json.changes = entry.changes as IDataObject;
		if (entry.action === 'missing' && entry.reason) json.reason = entry.reason;
		if (dryRun) json.dryRun = true;
		return { json, pairedItem: { item: 'item' in entry ? entry.item : 0 } };
	},
	summary(plan: PlanEntry[], scope: number, source: number, dryRun: boolean): INodeExecutionData {
		const counts = Object.fromEntries(
			ACTIONS.map((action) => [action, plan.filter((entry) => entry.action === action).length]),
		);
		return {
			json: { ...counts, scope, source, dryRun },
			pairedItem: source ? Array.from({ length: source }, (_, item) => ({ item })) : { item: 0 },
		};
	},
};
