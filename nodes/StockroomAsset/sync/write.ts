import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { ASSETS_PATH } from '../../shared/resources';
import type { PlanEntry } from '../../shared/sync/entries';
import { outOfScope as outsideTheScope } from '../../shared/sync/outOfScope';
import { writeEntries } from '../../shared/sync/write';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import { fieldLabel, type Ownership } from './source';

/**
 * Keys the plan would write that belong to an asset outside the scope: a new asset's key or
 * External ID, or the corrected key of an asset in scope (see the shared outOfScope).
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
	return await outsideTheScope(context, plan, {
		path: ASSETS_PATH,
		noun: 'asset',
		nouns: 'assets',
		label: fieldLabel,
		sought,
		retry,
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
		case 'restored':
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

/** Carries the plan out: a PUT, PATCH or DELETE per changed asset, 8 at a time. */
export async function writePlan(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	{ retry, continueOnFail }: { retry: RetryPolicy; continueOnFail: boolean },
): Promise<PlanEntry[]> {
	return await writeEntries(
		context,
		plan,
		{
			writes: (entry) => writeOf(entry) !== null,
			write: async (entry, item) => {
				const write = writeOf(entry)!;
				return await apiRequest.call(context, write.method, write.path, {
					body: write.body,
					operation: write.what,
					answer: write.method === 'DELETE' ? 'none' : 'record',
					itemIndex: item,
					retry,
				});
			},
		},
		{ continueOnFail },
	);
}
