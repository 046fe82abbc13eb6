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
import {
	canonical,
	isEarlierPlanId,
	PLANNED,
	planId,
	readPlanId,
	samePlan,
	SetDigest,
	shortDigest,
	WRITES,
	type Action,
	type PlanBasis,
	type PlanEntry,
	type PlanIdParts,
} from './entries';
import { carryPlan, type CarriedPlan } from './carried';
import { refuseEmptyScope, throwRefusal, type Refusal } from './guard';
import { cleanKey } from './keys';
import { SyncRefusal } from './refusal';
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
	/** The resource a dry run's plan is carried for (Apply Sync Plan). */
	resource?: CarriedPlan['resource'];
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

/**
 * A failed row's error item, named as people know the row (its key and name) on the first line of
 * its message. n8n sends an item down the error output only when its JSON holds nothing but
 * `error` and `message` (n8n 1.x; 2.x also `details`), so the name goes in the message.
 */
function rowErrorItem(error: Error, item: number, key?: string, name?: string): INodeExecutionData {
	const failed = errorItem(error, item);
	if (key === undefined) return failed;
	const row = `Row ${key}${name ? ` (${name})` : ''}`;
	failed.json.message = [row, failed.json.message].filter(Boolean).join('\n');
	return failed;
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
	const { plan, words, retry, options, facts, resource } = planned;
	const done = facts.dryRun ? plan : await writePlan(plan, { retry, continueOnFail });
	const failures = done.flatMap((entry) => {
		if (entry.action !== 'failed') return [];
		// a record the source does not have fails under its own name, paired with the first item
		if (entry.item === undefined) return [errorItem(entry.error, 0)];
		const error = failure(context, entry.error, entry.item);
		// the row as people know it: its key and name, beside the item's position
		return [rowErrorItem(error, entry.item, entry.key, entry.name)];
	});
	// a dry run's Summary or Report carries its plan, for Apply Sync Plan after an approval
	const carried = (item: INodeExecutionData): INodeExecutionData =>
		facts.dryRun && resource && options.carryPlan !== false
			? {
					...item,
					json: {
						...item.json,
						plan: carryPlan(resource, plan, facts, words) as unknown as IDataObject,
					},
				}
			: item;
	if (options.output === 'summary') return [carried(summaryItem(done, facts)), ...failures];
	if (options.output === 'report')
		return [
			carried(reportItem(done, words, facts, readReportLimit(context, options))),
			...failures,
		];
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

/** Parameters that decide how a run goes, not what its plan is. */
const NOT_THE_PLAN = new Set([
	'dryRun',
	'applyOnlyPlan',
	'toolMode',
	'maxRemovalPercent',
	'maxRemovals',
	'maxClearPercent',
	'syncNotice',
]);
const OPTIONS_NOT_THE_PLAN = new Set([
	'output',
	'reportLimit',
	'pageSize',
	'maxAttempts',
	'maxRetryWaitSeconds',
	'timeoutSeconds',
]);

/** When a record was last modified, in ms since 1970 (NaN: the service does not say). */
const modifiedAt = (record: IDataObject): number =>
	typeof record.lastModifiedDtm === 'string' ? Date.parse(record.lastModifiedDtm) : NaN;

/**
 * What the plan is made from besides its entries: the newest modification in the scope, and short
 * digests of the settings that shape the plan, the input items and the scope as read.
 */
export function planBasis(
	context: IExecuteFunctions,
	scope: readonly IDataObject[],
	inputs: readonly IDataObject[],
): PlanBasis {
	const parameters = context.getNode().parameters as IDataObject;
	const settings = Object.fromEntries(
		Object.entries(parameters)
			.filter(([name]) => !NOT_THE_PLAN.has(name))
			.map(([name, value]) =>
				name === 'options' && isPlainObject(value)
					? [
							name,
							Object.fromEntries(
								Object.entries(value).filter(([option]) => !OPTIONS_NOT_THE_PLAN.has(option)),
							),
						]
					: [name, value],
			),
	);
	// the items as given, order aside: what the settings read from them is the plan's part
	const input = new SetDigest();
	for (const json of inputs) input.add(canonical(json));
	const register = new SetDigest();
	let newest = 0;
	for (const record of scope) {
		const at = modifiedAt(record);
		if (at > newest) newest = at;
		register.add(
			Number.isNaN(at)
				? canonical(record)
				: `${String(record.id)}|${String(record.lastModifiedDtm)}`,
		);
	}
	return {
		newest,
		settings: shortDigest(canonical(settings)),
		input: input.short(),
		register: register.short(),
	};
}

/** The counts per action as a refusal lists them: "create 1, update 2, ...". */
const countsSaid = (count: (action: Action) => number) =>
	(['created', 'updated', 'restored', 'retired', 'deleted', 'missing', 'failed'] as Action[])
		.map((action) => `${PLANNED[action]} ${count(action)}`)
		.join(', ');

/** A record's key as the register has it (a person knows that one), else its row's, else its id. */
const keyOf = (entry: PlanEntry | undefined, record: IDataObject, words: RecordWords): string =>
	cleanKey(record[words.keyField]) ?? entry?.key ?? String(record.id);

/** The record an entry is about, named as a report names it: key (name · holder). */
function named(entry: PlanEntry | undefined, record: IDataObject, words: RecordWords): string {
	const { name, holder } = words.describe(record);
	const said = [name && `"${name}"`, holder].filter(Boolean).join(' · ');
	return `${keyOf(entry, record, words)}${said ? ` (${said})` : ''}`;
}

/**
 * What moved between the approved plan and this one, as far as the ids tell: records in scope
 * modified after the newest one the dry run read (named, with who modified them and what the
 * plan now does to them), the input, the node's settings.
 */
function whatMoved(
	then: PlanIdParts,
	now: PlanIdParts,
	plan: readonly PlanEntry[],
	scope: readonly IDataObject[],
	words: RecordWords,
): { headline: string; lines: string[] } {
	const lines: string[] = [];
	const heads: string[] = [];
	const since = then.basis.newest;
	const edited = since ? scope.filter((record) => modifiedAt(record) > since) : [];
	if (edited.length) {
		const entries = new Map<unknown, PlanEntry>();
		for (const entry of plan)
			if ('record' in entry && entry.record) entries.set(entry.record.id, entry);
		// those this plan writes or removes first
		const touched = (record: IDataObject) =>
			WRITES.includes(entries.get(record.id)?.action as Action) ? 0 : 1;
		const shown = [...edited].sort((a, b) => touched(a) - touched(b)).slice(0, 5);
		const said = shown.map((record) => {
			const entry = entries.get(record.id);
			const by = isPlainObject(record.lastModifiedBy)
				? (record.lastModifiedBy.name ?? record.lastModifiedBy.email)
				: undefined;
			const does =
				entry && entry.action !== 'unchanged'
					? `the plan now would ${PLANNED[entry.action]} it`
					: 'the plan now leaves it as it is';
			return `${named(entry, record, words)}, modified ${String(record.lastModifiedDtm)}${by ? ` by ${String(by)}` : ''}: ${does}`;
		});
		const more = edited.length - shown.length;
		heads.push(
			`${edited.length === 1 ? `the ${words.noun} ${keyOf(entries.get(edited[0].id), edited[0], words)} was` : `${edited.length} ${words.nouns} in scope were`} edited since the dry run`,
		);
		lines.push(
			`Edited since the dry run: ${said.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`,
		);
	} else if (then.basis.register !== now.basis.register) {
		heads.push('the register changed since the dry run');
		lines.push(
			`The register changed since the dry run: ${words.nouns} in scope were added, removed or edited.`,
		);
	}
	if (then.basis.input !== now.basis.input) {
		heads.push("the input differs from the dry run's");
		lines.push("The input differs from the dry run's: rows were added, removed or changed.");
	}
	if (then.basis.settings !== now.basis.settings) {
		heads.push("the node's settings differ from the dry run's");
		lines.push(
			"The node's settings differ from the dry run's (fields, mapping, scope, Missing Records or an option): the run that applies a plan must be set up as the dry run that made it.",
		);
	}
	if (!heads.length) {
		heads.push('the register changed since the dry run');
		lines.push('The register changed since the dry run.');
	}
	return { headline: heads.join(', and '), lines };
}

/**
 * Apply Only Plan: the run's plan must be the approved one. Otherwise nothing is written, and the
 * refusal says what changed: which records were edited since the dry run (and by whom), whether
 * the input or the node's settings differ, the counts per action then and now, and the first
 * records of the actions whose counts moved (of every write, when only the records did).
 */
function refuseOtherPlan(
	context: IExecuteFunctions,
	approved: string,
	plan: readonly PlanEntry[],
	id: string,
	words: RecordWords,
	scope: readonly IDataObject[],
): void {
	if (!approved || approved === id) return;
	const now = readPlanId(id)!;
	const then = readPlanId(approved);
	if (then && samePlan(then, now)) return;
	const counted = countActions(plan);
	const moved = then
		? WRITES.filter((action) => then.counts.get(action) !== counted[action])
		: [...WRITES];
	const first = plan
		.filter((entry) => (moved.length ? moved : WRITES).includes(entry.action))
		.slice(0, 5)
		.map((entry) => {
			const record =
				entry.action === 'created' ? entry.body : 'record' in entry ? entry.record : {};
			const { name } = words.describe(record ?? {});
			return `${PLANNED[entry.action]} ${entry.key ?? String(record?.id)}${name ? ` (${name})` : ''}`;
		});
	const moves = then ? whatMoved(then, now, plan, scope, words) : undefined;
	const notAnId = isEarlierPlanId(approved)
		? `"${approved}" is a plan ID of an earlier version of this node, which covered less of what a plan touches.`
		: `"${approved}" is not a plan ID (a dry run's output carries one in planId).`;
	throw new SyncRefusal(
		context.getNode(),
		'plan',
		`Sync refused: the plan is not the one approved${moves ? `: ${moves.headline}` : ''}`,
		[
			'Nothing was written.',
			...(moves?.lines ?? [notAnId]),
			then
				? `Approved: ${countsSaid((action) => then.counts.get(action) ?? 0)}. Now: ${countsSaid((action) => counted[action])}.`
				: '',
			first.length ? `The plan now would: ${first.join('; ')}.` : '',
			`Approved plan ID: ${approved}; now: ${id}.`,
			'Run the dry run again and approve its plan.',
		]
			.filter(Boolean)
			.join('\n'),
	);
}

/**
 * The last step before writing: the plan's id, whether this run is dry, and for a run that writes
 * the guard's refusals and Apply Only Plan. A failed row stops the run unless failures continue;
 * when they do, more failed rows than Max Failed Rows allows stop it.
 */
export function concludePlan(
	context: IExecuteFunctions,
	{
		plan,
		refusals,
		words,
		continueOnFail,
		scope,
		inputs,
	}: {
		plan: readonly PlanEntry[];
		refusals: readonly Refusal[];
		words: RecordWords;
		continueOnFail: boolean;
		scope: readonly IDataObject[];
		inputs: readonly IDataObject[];
	},
): Pick<RunFacts, 'planId' | 'dryRun' | 'refusals'> {
	const dryRun = readDryRun(context);
	const id = planId(plan, planBasis(context, scope, inputs));
	const rows = refusals.filter((refusal) => refusal.kind === 'rows');
	if (!dryRun) {
		throwRefusal(
			context.getNode(),
			refusals.filter((refusal) => refusal.kind !== 'rows'),
		);
		const approved = String(context.getNodeParameter('applyOnlyPlan', 0, '') ?? '').trim();
		refuseOtherPlan(context, approved, plan, id, words, scope);
	}
	const failed = plan.find((entry) => entry.action === 'failed');
	if (failed?.action === 'failed' && !continueOnFail)
		throw failure(context, failed.error, failed.item ?? 0);
	if (!dryRun) throwRefusal(context.getNode(), rows);
	return { planId: id, dryRun, refusals };
}

/**
 * The records in scope, from one walk of the list with the Scope's filter (given too: what a run
 * writes must land in it). A scope that gives no filter is refused unless it is None; missing is
 * known only from a complete walk, so a walk that fails writes nothing, and so does one that does
 * not look whole (see checkWhole).
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
): Promise<{ records: IDataObject[]; filter?: FilterNode }> {
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
	return { records, filter };
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
		new SyncRefusal(
			context.getNode(),
			'service',
			`Could not list the ${nouns} in scope whole: ${why}`,
			'Nothing was written: which records are missing is known only from a list read whole. The service (or a gateway before it) answered in a way that does not add up; run the sync again.',
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
