import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { normalizeRecord, withoutReadOnly } from '../../shared/records';
import { CONTRACTS_PATH } from '../../shared/resources';
import { contractSchema } from '../../shared/schema/contract';
import type { LineItemPatch, PlanEntry } from '../../shared/sync/entries';
import { writeEntries } from '../../shared/sync/write';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import { applyLinePatch } from './lines';
import { storedLines } from './plan';

/**
 * The contract a PUT writes: the contract as read just now, every field and line item kept, with
 * the changed owned fields over it (null clears; a list, documents, is sent empty) and the line
 * item patch applied. The service has
 * no partial update for contracts: a PUT replaces the contract, and removes each line item whose
 * External ID it leaves out, so everything kept is sent back.
 */
export function mergedContract(
	current: IDataObject,
	patch: IDataObject,
	lineItems: LineItemPatch | undefined,
	timezone: string,
): IDataObject {
	const record = withoutReadOnly(
		contractSchema.fields,
		normalizeRecord(contractSchema.fields, current, timezone),
	);
	for (const [name, value] of Object.entries(patch)) {
		if (value !== null) record[name] = value;
		// a list a PUT leaves out stays as it is (service-behaviour.md §5); [] empties it
		else if (contractSchema.fields[name]?.type === 'list') record[name] = [];
		else delete record[name];
	}
	if (lineItems) record.lineItems = applyLinePatch(storedLines(current, timezone), lineItems);
	return record;
}

/**
 * Carries the plan out, 8 contracts at a time: a new contract is one PUT; a changed one is read
 * (GET by id) just before its write and written once (PUT), so a change someone made since the
 * scope's walk stays; a deleted one is one DELETE.
 */
export async function writePlan(
	context: IExecuteFunctions,
	plan: PlanEntry[],
	{ retry, continueOnFail }: { retry: RetryPolicy; continueOnFail: boolean },
): Promise<PlanEntry[]> {
	const timezone = context.getTimezone();
	const request = (
		method: 'GET' | 'PUT' | 'DELETE',
		path: string,
		operation: string,
		item: number | undefined,
		body?: IDataObject,
	) =>
		apiRequest.call(context, method, path, {
			body,
			operation,
			answer: method === 'DELETE' ? 'none' : 'record',
			itemIndex: item,
			retry,
		});
	return await writeEntries(
		context,
		plan,
		{
			writes: (entry) => ['created', 'updated', 'deleted'].includes(entry.action),
			write: async (entry, item) => {
				if (entry.action === 'created')
					return await request(
						'PUT',
						CONTRACTS_PATH,
						`create the contract "${entry.key}"`,
						item,
						entry.body,
					);
				if (entry.action === 'deleted')
					return await request(
						'DELETE',
						`${CONTRACTS_PATH}/${String(entry.record.id)}`,
						`delete contract ${String(entry.record.id)}`,
						item,
					);
				if (entry.action !== 'updated') return undefined;
				const id = String(entry.record.id);
				const current = await request(
					'GET',
					`${CONTRACTS_PATH}/${id}`,
					`read the contract "${entry.key}" before writing it`,
					item,
				);
				return await request(
					'PUT',
					CONTRACTS_PATH,
					`update the contract "${entry.key}"`,
					item,
					mergedContract(current, entry.patch, entry.lineItems, timezone),
				);
			},
		},
		{ continueOnFail },
	);
}
