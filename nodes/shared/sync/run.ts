import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { all, compare, printFilter, type FilterNode } from '../filter';
import { readFilter, type FilterInputOptions } from '../filterInput';
import { errorItem, InvalidItemError, toItemError } from '../runItems';
import type { ResourceSchema } from '../schema/fields';
import { isPlainObject } from '../schema/values';
import { collect, MAX_PAGE_SIZE, paginate, type RetryPolicy } from '../transport';
import { PLANNED, planId, planIdCounts, type Action, type PlanEntry } from './entries';
import { refuseEmptyScope, throwRefusal, type Refusal } from './guard';
import {
	countActions,
	recordItem,
	reportItem,
	summaryItem,
	type RecordWords,
	type RunFacts,
} from './output';

/**
 * The flow every Sync shares: plan everything before the first write, write the plan (unless
 * dry), then give the output the node's Output option asks for. What is planned and how it is
 * written is the resource's.
 */

/** A plan ready to be written, with what its output needs. */
export interface Planned {
	plan: PlanEntry[];
	words: RecordWords;
	retry: RetryPolicy;
	options: IDataObject;
	facts: RunFacts;
}

/** Writes a plan's entries; gives the plan as done (created records with their ids, failures). */
export type PlanWriter = (
	plan: PlanEntry[],
	settings: { retry: RetryPolicy; continueOnFail: boolean },
) => Promise<PlanEntry[]>;

/** The input as one set: an export that came back empty is no item, or one empty item. */
export function readInputs(context: IExecuteFunctions): IDataObject[] {
	// an export that came back empty reaches the node as no item, or (Always Output Data on the
	// node before) as one empty item: either is an empty input
	const given = context.getInputData().map((item) => item.json);
	return given.every((json) => !Object.keys(json).length) ? [] : given;
}

/** A plan's failure as n8n shows an item's: a node error naming the item. */
export function failure(context: IExecuteFunctions, error: Error, item: number): Error {
	const known =
		error instanceof InvalidItemError ||
		error instanceof NodeApiError ||
		error instanceof NodeOperationError;
	return toItemError(
		context,
		known ? error : new NodeOperationError(context.getNode(), error.message),
		item,
	);
}

/**
 * A run stopped before its first write (the guard, an empty source, a scope that could not be read
 * whole, the node's settings) is one error item with On Error: Continue. Thrown, n8n would pass
 * the input items on as if they were the output (n8n 2.x), and nothing would say that nothing
 * was written.
 */
export function stoppedItem(error: unknown): INodeExecutionData {
	const stopped = (error instanceof Error ? error : new Error(String(error))) as Error & {
		description?: unknown;
	};
	const said = typeof stopped.description === 'string' ? stopped.description : '';
	if (!said.startsWith('Nothing was written'))
		stopped.description = ['Nothing was written: the sync stopped before its first write.', said]
			.filter(Boolean)
			.join('\n');
	return errorItem(stopped, 0);
}

/** Plans, writes unless dry, and gives the output the Output option asks for. */
export async function runSync(
	context: IExecuteFunctions,
	planRun: (continueOnFail: boolean) => Promise<Planned>,
	writePlan: PlanWriter,
): Promise<INodeExecutionData[]> {
	const continueOnFail = context.continueOnFail();
	const planning = planRun(continueOnFail);
	const planned = continueOnFail ? await planning.catch(stoppedItem) : await planning;
	if ('json' in planned) return [planned];
	const { plan, words, retry, options, facts } = planned;
	const done = facts.dryRun ? plan : await writePlan(plan, { retry, continueOnFail });
	const failures = done.flatMap((entry) => {
		if (entry.action !== 'failed') return [];
		// a record the source does not have fails under its own name, paired with the first item
		return [
			entry.item === undefined
				? errorItem(entry.error, 0)
				: errorItem(failure(context, entry.error, entry.item), entry.item),
		];
	});
	if (options.output === 'summary') return [summaryItem(done, facts), ...failures];
	if (options.output === 'report')
		return [reportItem(done, words, facts, readReportLimit(context, options)), ...failures];
	let failed = 0;
	return done.map((entry) =>
		entry.action === 'failed' ? failures[failed++] : recordItem(entry, words, facts),
	);
}

/** Report Lines per Action, checked like the guard's numbers. */
function readReportLimit(context: IExecuteFunctions, options: IDataObject): number {
	const limit = Number(options.reportLimit ?? 20);
	if (!Number.isInteger(limit) || limit < 1)
		throw new NodeOperationError(
			context.getNode(),
			`Report Lines per Action must be a whole number from 1 up, got ${JSON.stringify(options.reportLimit)}`,
		);
	return limit;
}

/**
 * Whether this run writes: not a dry run, and as an AI tool only a plan the node lets the agent
 * apply (Apply an Approved Plan, with its plan ID given).
 */
function readDryRun(context: IExecuteFunctions): boolean {
	if (context.getNodeParameter('dryRun', 0, false) as boolean) return true;
	if (!context.getNode().type.endsWith('Tool')) return false;
	const applies = context.getNodeParameter('toolMode', 0, 'propose') === 'apply';
	return !(applies && String(context.getNodeParameter('applyOnlyPlan', 0, '') ?? '').trim());
}

/**
 * Apply Only Plan: the run's plan must be the approved one. Otherwise nothing is written, and the
 * refusal says what changed: the counts per action then and now, and the first records of the
 * actions whose counts moved (of every write, when only the records or their changes did).
 */
function refuseOtherPlan(
	context: IExecuteFunctions,
	approved: string,
	plan: readonly PlanEntry[],
	id: string,
	words: RecordWords,
): void {
	if (!approved || approved === id) return;
	const then = planIdCounts(approved);
	const now = countActions(plan);
	const writes: Action[] = ['created', 'updated', 'retired', 'deleted'];
	const counted = (counts: (action: Action) => number) =>
		(['created', 'updated', 'retired', 'deleted', 'missing', 'failed'] as Action[])
			.map((action) => `${PLANNED[action]} ${counts(action)}`)
			.join(', ');
	const moved = then ? writes.filter((action) => then.get(action) !== now[action]) : writes;
	const first = plan
		.filter((entry) => (moved.length ? moved : writes).includes(entry.action))
		.slice(0, 5)
		.map((entry) => {
			const record =
				entry.action === 'created' ? entry.body : 'record' in entry ? entry.record : {};
			const { name } = words.describe(record ?? {});
			return `${PLANNED[entry.action]} ${entry.key ?? String(record?.id)}${name ? ` (${name})` : ''}`;
		});
	throw new NodeOperationError(
		context.getNode(),
		`Sync refused: the plan is not the one approved (approved ${approved}, now ${id})`,
		{
			description: [
				'Nothing was written. The register or the input changed between the dry run and this run.',
				then
					? `Approved: ${counted((action) => then.get(action) ?? 0)}. Now: ${counted((action) => now[action])}.`
					: `"${approved}" is not a plan ID (a dry run's output carries one in planId).`,
				first.length ? `The plan now would: ${first.join('; ')}.` : '',
				'Run the dry run again and approve its plan.',
			]
				.filter(Boolean)
				.join('\n'),
		},
	);
}

/**
 * The last step before writing: the plan's id, whether this run is dry, and for a run that writes
 * the guard's refusals and Apply Only Plan. A failed row stops the run unless failures continue.
 */
export function concludePlan(
	context: IExecuteFunctions,
	{
		plan,
		refusals,
		words,
		continueOnFail,
	}: {
		plan: readonly PlanEntry[];
		refusals: readonly Refusal[];
		words: RecordWords;
		continueOnFail: boolean;
	},
): Pick<RunFacts, 'planId' | 'dryRun' | 'refusals'> {
	const dryRun = readDryRun(context);
	const id = planId(plan);
	if (!dryRun) {
		throwRefusal(context.getNode(), refusals);
		const approved = String(context.getNodeParameter('applyOnlyPlan', 0, '') ?? '').trim();
		refuseOtherPlan(context, approved, plan, id, words);
	}
	const failed = plan.find((entry) => entry.action === 'failed');
	if (failed?.action === 'failed' && !continueOnFail)
		throw failure(context, failed.error, failed.item ?? 0);
	return { planId: id, dryRun, refusals };
}

/**
 * The records in scope, from one walk of the list with the Scope's filter. A scope that gives no
 * filter is refused unless it is None; missing is known only from a complete walk, so a walk that
 * fails writes nothing, and so does one that does not look whole (see checkWhole).
 */
export async function walkScope(
	context: IExecuteFunctions,
	{
		schema,
		path,
		nouns,
		timezone,
		retry,
		options,
		listField,
		customFieldTypes,
	}: {
		schema: ResourceSchema;
		path: string;
		nouns: string;
		timezone: string;
		retry: RetryPolicy;
		options: IDataObject;
	} & Pick<FilterInputOptions, 'listField' | 'customFieldTypes'>,
): Promise<IDataObject[]> {
	const filterMode = context.getNodeParameter('filterMode', 0, 'none');
	const filter = await readFilter(schema, {
		getParameter: (name, fallback) => context.getNodeParameter(name, 0, fallback),
		timezone,
		listField,
		customFieldTypes,
	}).catch((error: unknown) => {
		throw toItemError(context, error, 0);
	});
	refuseEmptyScope(context.getNode(), filterMode, filter !== undefined, schema.noun);
	const list = (scope: FilterNode | undefined, limit?: number) =>
		collect(
			paginate.call(context, path, scope ? { filter: printFilter(scope) } : {}, {
				operation: `list the ${nouns} in scope`,
				pageSize: Math.min(Number(options.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE),
				limit,
				itemIndex: 0,
				retry,
			}),
		);
	const records = await list(filter);
	const last = records.at(-1)?.id;
	await checkWhole(
		context,
		records,
		nouns,
		async () =>
			await list(last === undefined ? filter : all(filter, compare('id', 'gt', String(last))), 1),
	);
	return records;
}

/**
 * A walk's end is believed only when the list agrees with itself: the service lists by id, so the
 * ids ascend, and asking once more for what follows the last record read must give nothing. A
 * gateway's well-formed `{"results": []}` in the middle of the list, or a page out of order, would
 * otherwise make every record after it "missing". Costs one request. A record created in scope
 * while the walk ran fails the run too: it says so, and the next run reads it.
 */
async function checkWhole(
	context: IExecuteFunctions,
	records: readonly IDataObject[],
	nouns: string,
	readOnce: () => Promise<IDataObject[]>,
): Promise<void> {
	const notWhole = (why: string) =>
		new NodeOperationError(
			context.getNode(),
			`Could not list the ${nouns} in scope whole: ${why}`,
			{
				description:
					'Nothing was written: which records are missing is known only from a list read whole. The service (or a gateway before it) answered in a way that does not add up; run the sync again.',
			},
		);
	for (let i = 1; i < records.length; i++) {
		if (String(records[i].id) <= String(records[i - 1].id))
			throw notWhole(
				`the list came back out of order (id ${String(records[i].id)} after ${String(records[i - 1].id)})`,
			);
	}
	const after = await readOnce();
	if (after.length)
		throw notWhole(
			records.length
				? `the list ended at id ${String(records.at(-1)!.id)}, yet the service has ${nouns} after it (id ${String(after[0].id)})`
				: `the list came back empty, yet the service has ${nouns} in scope (id ${String(after[0].id)})`,
		);
}

/** The mapped columns (Map Columns): those given a value or an expression. */
export function mappedColumns(context: IExecuteFunctions): Record<string, string> {
	const raw: unknown = context.getNode().parameters.syncColumns;
	const value = isPlainObject(raw) && isPlainObject(raw.value) ? raw.value : {};
	return Object.fromEntries(
		Object.entries(value)
			.filter(([, mapping]) => mapping !== null && mapping !== undefined && String(mapping).trim())
			.map(([id, mapping]) => [id, String(mapping)]),
	);
}

/** The input keys a mapping reads: `{{ $json.model }}`, `{{ $json["Serial number"] }}`. */
export function mappingReads(mapping: string): string[] {
	const reads: string[] = [];
	for (const match of mapping.matchAll(/\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(["'])(.*?)\2\s*\])/g))
		reads.push(match[1] ?? match[3]);
	return reads;
}
