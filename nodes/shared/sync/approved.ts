import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../descriptions/common';
import { showFor } from '../descriptions/showFor';
import { findByField } from '../lookup';
import { runPooled, WRITES_AT_ONCE } from '../pool';
import { isPlainObject } from '../schema/values';
import { apiRequest, isNotFound, type RetryPolicy } from '../transport';
import type { CarriedPlan } from './carried';
import { canonical, readPlanId, shortDigest, WRITES, type PlanEntry } from './entries';
import { withArticle } from './identity';
import { outputOption } from './form';
import { keyForm } from './keys';
import type { RecordWords } from './output';
import { SyncRefusal } from './refusal';
import { runSync, type PlanWriter } from './run';

/**
 * A plan a person approved, applied as it is. A Sync's dry run carries its plan in its Summary
 * or Report (`plan`: every write, with each record it touches as the dry run read it); Apply Sync
 * Plan takes that item and writes exactly those entries, with no second copy of the Sync's
 * mapping, scope or guard: the person saw the counts, so the guard does not stop it. Before the
 * first write every record the plan touches is read again, and a new record's keys looked up: a
 * record edited or removed since the dry run, or a key someone gave a record meanwhile, refuses
 * the whole plan, naming them.
 */

/** What a record looked like, to tell whether it changed: its modification time, or all of it. */
const stampOf = (record: IDataObject): string =>
	typeof record.lastModifiedDtm === 'string'
		? record.lastModifiedDtm
		: shortDigest(canonical(record));

/** The parameters of Apply Sync Plan. */
export function applyPlanProperties(nouns: string): INodeProperties[] {
	return showFor(
		['applyPlan'],
		[
			{
				displayName:
					'Apply Sync Plan writes a plan a Sync dry run made and a person approved, exactly: it needs none of the Sync’s settings. Every record the plan touches must still be as the dry run read it, or nothing is written.',
				name: 'applyPlanNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Approved Plan',
				name: 'approvedPlan',
				type: 'json',
				default: '={{ $json.plan }}',
				required: true,
				placeholder: "e.g. {{ $('Sync (dry run)').first().json.plan }}",
				description:
					'The plan of the dry run the person approved, as its Summary or Report carries it in its plan field',
			},
			optionsProperty(
				outputOption(`Each of the ${nouns} written, with its action and changes`, 'report'),
			),
		],
	);
}

/** How a resource applies a plan: where its records live, how they are named and written. */
export interface PlanApplier {
	resource: CarriedPlan['resource'];
	path: string;
	words: (keyField: string) => RecordWords;
	/** The fields a new record's key is looked up by (none of them may be taken since). */
	keys: (keyField: string) => string[];
	write: PlanWriter;
}

/** Reads the Approved Plan parameter: the carried plan of this resource, or a refusal saying why not. */
function readCarriedPlan(context: IExecuteFunctions, resource: string): CarriedPlan {
	const raw = context.getNodeParameter('approvedPlan', 0, undefined) as unknown;
	let given: unknown = raw;
	if (typeof raw === 'string') {
		try {
			given = JSON.parse(raw);
		} catch {
			given = undefined;
		}
	}
	const refuse = (why: string) =>
		new SyncRefusal(
			context.getNode(),
			'plan',
			`Apply Sync Plan refused: ${why}`,
			"Nothing was written. Give Approved Plan the plan of the dry run the person approved: its Summary or Report carries it in plan (e.g. {{ $('Sync (dry run)').first().json.plan }}).",
		);
	if (!isPlainObject(given) || !Array.isArray(given.entries) || typeof given.planId !== 'string')
		throw refuse('Approved Plan is not a plan a Sync dry run carries');
	if (given.carried !== 1) throw refuse('the plan is of another version of this node');
	if (given.resource !== resource)
		throw refuse(
			`the plan is ${withArticle(String(given.resource))} sync's, not ${withArticle(resource)} sync's`,
		);
	const counts = readPlanId(given.planId);
	const entries = given.entries as IDataObject[];
	const written = counts
		? WRITES.reduce((sum, action) => sum + (counts.counts.get(action) ?? 0), 0)
		: -1;
	if (
		written !== entries.length ||
		entries.some((entry) => !WRITES.includes(entry.action as never))
	)
		throw refuse(`its entries are not those of the plan ${given.planId}`);
	return given as unknown as CarriedPlan;
}

/**
 * Reads again every record the plan touches and looks up every key a new record would take:
 * what moved since the dry run, said as a refusal naming each (at most a few, and a count).
 */
async function checkStillTrue(
	context: IExecuteFunctions,
	plan: readonly PlanEntry[],
	applier: PlanApplier,
	words: RecordWords,
	retry: RetryPolicy,
): Promise<void> {
	const moved: string[] = [];
	const touched = plan.filter(
		(entry): entry is Extract<PlanEntry, { record: IDataObject }> =>
			entry.action !== 'created' && 'record' in entry && entry.record !== undefined,
	);
	const name = (record: IDataObject) => {
		const { name: called, holder } = words.describe(record);
		const key = String(record[words.keyField] ?? record.id);
		const said = [called && `"${called}"`, holder].filter(Boolean).join(' · ');
		return `${key}${said ? ` (${said})` : ''}`;
	};
	await runPooled(touched.length, WRITES_AT_ONCE, async (index) => {
		const { record } = touched[index];
		const now = await apiRequest
			.call(context, 'GET', `${applier.path}/${encodeURIComponent(String(record.id))}`, {
				operation: `read the ${words.noun} ${String(record.id)} the plan touches`,
				answer: 'record',
				itemIndex: 0,
				retry,
			})
			.catch((error: unknown) => {
				if (isNotFound(error)) return undefined;
				throw error;
			});
		if (!now) moved.push(`${name(record)} was deleted since the dry run`);
		else if (stampOf(now) !== stampOf(record)) {
			const by = isPlainObject(now.lastModifiedBy)
				? (now.lastModifiedBy.name ?? now.lastModifiedBy.email)
				: undefined;
			moved.push(
				`${name(now)} was edited since the dry run${typeof now.lastModifiedDtm === 'string' ? ` (modified ${now.lastModifiedDtm}${by ? ` by ${String(by)}` : ''})` : ''}`,
			);
		}
	});
	const created = plan.filter(
		(entry): entry is Extract<PlanEntry, { action: 'created' }> => entry.action === 'created',
	);
	for (const field of applier.keys(words.keyField)) {
		const values = created.flatMap((entry) =>
			typeof entry.body[field] === 'string' ? [entry.body[field] as string] : [],
		);
		if (!values.length) continue;
		const found = await findByField(context, applier.path, words.nouns, field, values, {
			retry,
			itemIndex: 0,
			form: keyForm,
		});
		for (const value of values)
			for (const record of found.get(keyForm(value)) ?? [])
				moved.push(
					`${name(record)} was given the ${field} "${value}" the plan creates, since the dry run`,
				);
	}
	if (!moved.length) return;
	const shown = moved.slice(0, 5);
	throw new SyncRefusal(
		context.getNode(),
		'plan',
		`Apply Sync Plan refused: the register changed since the dry run: ${shown[0]}${moved.length > 1 ? `, and ${moved.length - 1} more` : ''}`,
		[
			'Nothing was written. A person approved the plan as the dry run read these records:',
			...shown.map((line) => `- ${line}`),
			...(moved.length > shown.length ? [`- and ${moved.length - shown.length} more`] : []),
			'Run the dry run again and approve its plan.',
		].join('\n'),
	);
}

/** Apply Sync Plan: the approved plan's writes, exactly, once every record is as it was read. */
export async function applyApprovedPlan(
	context: IExecuteFunctions,
	applier: PlanApplier,
): Promise<INodeExecutionData[]> {
	return await runSync(
		context,
		async () => {
			const carried = readCarriedPlan(context, applier.resource);
			const options = context.getNodeParameter('options', 0, {}) as IDataObject;
			const retry = readRetryPolicy(options);
			const base = applier.words(carried.keyField);
			const words: RecordWords = {
				...base,
				fieldLabel: (field) => carried.labels?.[field] ?? base.fieldLabel(field),
			};
			// the dry run's item positions are not this run's: every output pairs with the approval
			const plan = carried.entries.map((entry) => {
				const paired: IDataObject = { ...entry, item: 0 };
				delete paired.items;
				return paired;
			}) as unknown as PlanEntry[];
			await checkStillTrue(context, plan, applier, words, retry);
			return {
				plan,
				words,
				retry,
				options: { output: 'report', ...options },
				facts: {
					planId: carried.planId,
					dryRun: false,
					refusals: [],
					scope: carried.scope,
					source: carried.source,
					inputs: context.getInputData().length,
				},
			};
		},
		applier.write,
	);
}
