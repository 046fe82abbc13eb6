import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { CUSTOM_COLUMN_PREFIX } from '../../shared/columns';
import { optionsProperty, pageSizeOption, readRetryPolicy } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { writableScalars } from '../../shared/descriptions/recordFields';
import { showFor, showWhen } from '../../shared/descriptions/showFor';
import { printFilter } from '../../shared/filter';
import { readFilter } from '../../shared/filterInput';
import { ASSETS_PATH } from '../../shared/resources';
import {
	errorItem,
	InvalidItemError,
	toItemError,
	type ExecutionCache,
} from '../../shared/runItems';
import { ASSET_STATUSES, assetSchema } from '../../shared/schema/asset';
import { enumLabel } from '../../shared/schema/fields';
import { findDefinition } from '../../shared/schema/validate';
import { didYouMean, isPlainObject } from '../../shared/schema/values';
import { itemKeys, refuseAbsentColumns } from '../../shared/sync/columns';
import {
	guardProperties,
	guardRefusals,
	readGuardLimits,
	refuseEmptyScope,
	refuseEmptySource,
	throwRefusal,
} from '../../shared/sync/guard';
import { resolveRows } from '../../shared/sync/identity';
import { DEFAULT_PLACEHOLDER_KEYS, placeholderTest } from '../../shared/sync/keys';
import { collect, MAX_PAGE_SIZE, paginate, type RetryPolicy } from '../../shared/transport';
import { customFieldDefinitions, customFieldTypes } from '../customFields';
import {
	countActions,
	reportItem,
	recordItem,
	summaryItem,
	type RecordWords,
	type RunFacts,
} from '../../shared/sync/output';
import {
	PLANNED,
	planId,
	planIdCounts,
	type Action,
	type MissingRecords,
	type PlanEntry,
} from '../../shared/sync/entries';
import { planSync } from '../sync/plan';
import {
	absentColumns,
	columnsByName,
	fieldLabel,
	fieldName,
	readRow,
	SYNC_KEYS,
	type Ownership,
	type SourceColumns,
	type SyncKey,
} from '../sync/source';
import { outOfScope, writePlan } from '../sync/write';

const fieldOptions = writableScalars(assetSchema.fields)
	.map(([name, field]) => ({ name: field.displayName, value: name }))
	.sort((a, b) => a.name.localeCompare(b.name));

const properties: INodeProperties[] = [
	{
		displayName:
			'Sync makes the assets in scope match the input items, the complete set from one source: it creates what is new, updates the fields to sync where they differ, and handles assets in scope that the source no longer has. Run it with Dry Run first.',
		name: 'syncNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Match On',
		name: 'syncKey',
		type: 'options',
		options: SYNC_KEYS.map((key) => ({
			name: assetSchema.fields[key].displayName,
			value: key,
		})),
		default: 'externalId',
		description:
			"The field that pairs an input item with an asset, compared trimmed and case aside; it must be unique in the source and in the scope. With Serial Number or Asset Tag, an item's externalId also names its asset (a corrected serial is updated).",
	},
	{
		displayName: 'Source Columns',
		name: 'sourceColumns',
		type: 'options',
		options: [
			{
				name: 'Named as Asset Fields',
				value: 'names',
				description:
					"Each item's keys are the asset fields' API names (deviceName, serialNumber, ...)",
			},
			{
				name: 'Map Columns',
				value: 'map',
				description:
					'Map the export\'s own columns ("Serial number", "Device name") to asset fields; the mapped fields are the ones synced',
			},
		],
		default: 'names',
	},
	...showWhen({ sourceColumns: ['names'] }, [
		{
			displayName: 'Fields to Sync',
			name: 'fieldsToSync',
			type: 'multiOptions',
			options: fieldOptions,
			default: [],
			description:
				"The fields the source owns, read from each input item's JSON by their API names: only these are compared and written (an empty value clears the field); every other field is left as it is",
		},
		{
			displayName: 'Custom Fields to Sync Names or IDs',
			name: 'customFieldsToSync',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getAssetCustomFields' },
			default: [],
			description:
				'Custom fields the source owns, read from the item\'s customFieldValues (e.g. {"costCenter": {"textValue": "CC-1"}}) or customFields ({"costCenter": "CC-1"}), keyed by name or key. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		},
	]),
	{
		displayName: 'Columns',
		name: 'syncColumns',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			resourceMapper: {
				resourceMapperMethod: 'getAssetSyncColumns',
				mode: 'map',
				fieldWords: { singular: 'field', plural: 'fields' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
		displayOptions: { show: { sourceColumns: ['map'] } },
	},
	{
		displayName: 'Fields Set Only When Creating',
		name: 'createOnlyFields',
		type: 'multiOptions',
		options: fieldOptions,
		default: [],
		description:
			'Fields used for new assets only (e.g. Status, Asset Type): never compared or written on existing assets, so what people keep there stays. Read like the fields to sync.',
	},
	...filterProperties(assetSchema, {
		loadFieldsMethod: 'getAssetFilterFields',
		resourceLabel: 'assets',
	}).map((property) =>
		property.name === 'filterMode'
			? {
					...property,
					displayName: 'Scope',
					description:
						'The assets this source owns (e.g. a custom field Source = Jamf): only these are compared, and missing ones handled. None: every asset.',
				}
			: property,
	),
	{
		displayName: 'Missing Records',
		name: 'missingRecords',
		type: 'options',
		options: [
			{ name: 'Keep', value: 'keep', description: 'Leave them as they are (listed as missing)' },
			{ name: 'Set Status', value: 'setStatus', description: 'Set their status, e.g. Retired' },
			{ name: 'Delete', value: 'delete', description: 'Delete them from the service' },
		],
		default: 'keep',
		description: 'What to do with assets in scope that no input item has',
	},
	{
		displayName: 'Status',
		name: 'missingStatus',
		type: 'options',
		options: ASSET_STATUSES.map((status) => ({ name: enumLabel(status), value: status })).sort(
			(a, b) => a.name.localeCompare(b.name),
		),
		default: 'Retired',
		displayOptions: { show: { missingRecords: ['setStatus'] } },
	},
	{
		displayName: 'Dry Run',
		name: 'dryRun',
		type: 'boolean',
		default: false,
		description:
			'Whether to only show what would change (the same output, with its plan ID), writing nothing; the guard does not stop a dry run, which says when the real run would be refused',
	},
	{
		displayName: 'Apply Only Plan',
		name: 'applyOnlyPlan',
		type: 'string',
		default: '',
		placeholder: "e.g. {{ $('Sync (dry run)').first().json.planId }}",
		description:
			'The plan ID of the dry run a person approved: the run writes only if its plan is exactly that one, and otherwise writes nothing and says what changed. Empty: apply the plan as it is.',
		displayOptions: { show: { dryRun: [false] } },
	},
	{
		displayName: 'As an AI Tool',
		name: 'toolMode',
		type: 'options',
		options: [
			{
				name: 'Propose Only',
				value: 'propose',
				description: 'Every call is a dry run: the agent gets the plan and its plan ID',
			},
			{
				name: 'Apply an Approved Plan',
				value: 'apply',
				description:
					'A call with a plan ID in Apply Only Plan writes that plan if it is still the plan; a call without one is a dry run',
			},
		],
		default: 'propose',
		description:
			'What an AI agent may do with this node as a tool (no effect in a workflow). The guard holds either way.',
	},
	...guardProperties('assets'),
	optionsProperty(
		{
			displayName: 'Allow Empty Source',
			name: 'allowEmptySource',
			type: 'boolean',
			default: false,
			description:
				'Whether an input with no item may handle every asset in scope as missing. Off, such a run is refused (a source that returned nothing is usually a failed export).',
		},
		{
			displayName: 'Field Missing From an Item',
			name: 'absentFields',
			type: 'options',
			options: [
				{
					name: 'Leave As Is',
					value: 'keep',
					description: "The asset's value stays (an explicit null or empty value clears)",
				},
				{ name: 'Clear', value: 'clear', description: "The asset's value is cleared" },
			],
			default: 'keep',
			description:
				'What a synced field means when an item does not have it at all (a field that no item has stops the run)',
		},
		{
			displayName: 'Placeholder Keys',
			name: 'placeholderKeys',
			type: 'string',
			typeOptions: { rows: 4 },
			default: DEFAULT_PLACEHOLDER_KEYS,
			description:
				'Key values that mean "no key" (BIOS and MDM fillers such as To Be Filled By O.E.M.), one per line, case aside; /.../ is a regular expression. A row with one is refused and its asset kept.',
		},
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			options: [
				{
					name: 'One Item per Record',
					value: 'records',
					description: 'Each asset with its action and, for changes, each field before and after',
				},
				{
					name: 'Summary',
					value: 'summary',
					description: 'One item counting each action; failed rows as error items',
				},
				{
					name: 'Report',
					value: 'report',
					description:
						'One item with the counts and the changes as Markdown and HTML, with a subject line, for a message, an e-mail or an approval; failed rows as error items',
				},
			],
			default: 'records',
		},
		{
			displayName: 'Report Lines per Action',
			name: 'reportLimit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 20,
			description:
				'With Output: Report, how many assets each action lists (the counts are always whole)',
		},
		pageSizeOption('Assets read'),
	),
];

export const description = showFor(['sync'], properties);

/** The mapped columns (Map Columns): those given a value or an expression. */
function mappedColumns(context: IExecuteFunctions): Record<string, string> {
	const raw: unknown = context.getNode().parameters.syncColumns;
	const value = isPlainObject(raw) && isPlainObject(raw.value) ? raw.value : {};
	return Object.fromEntries(
		Object.entries(value)
			.filter(([, mapping]) => mapping !== null && mapping !== undefined && String(mapping).trim())
			.map(([id, mapping]) => [id, String(mapping)]),
	);
}

/** Custom fields chosen by name or key, resolved once to the service's definitions. */
async function ownedCustomFields(
	context: IExecuteFunctions,
	cache: ExecutionCache,
	chosen: readonly string[],
) {
	if (!chosen.length) return [];
	const definitions = await customFieldDefinitions(context, cache, 0);
	return chosen.map((name) => {
		const definition = findDefinition(name, definitions);
		if (!definition)
			throw new NodeOperationError(
				context.getNode(),
				`Custom field "${name}" is not one of the service's asset custom fields${didYouMean(
					name,
					definitions.map((candidate) => candidate.name),
				)}`,
				{
					description: `Nothing was written. The custom fields are: ${definitions.map((candidate) => `${candidate.name} (${candidate.lookupKey})`).join(', ')}.`,
				},
			);
		return definition;
	});
}

/** Sync's settings are the node's, for the input as one set: read at the first item. */
async function readOwnership(
	context: IExecuteFunctions,
	cache: ExecutionCache,
): Promise<{ own: Ownership; mapped?: Record<string, string> }> {
	const get = <T>(name: string, fallback: T) => context.getNodeParameter(name, 0, fallback) as T;
	const key = get<SyncKey>('syncKey', 'externalId');
	const options = get<IDataObject>('options', {});
	const identity = new Set<string>([key, 'externalId']);
	const createOnly = get<string[]>('createOnlyFields', []).filter((name) => !identity.has(name));
	const mapped =
		get<string>('sourceColumns', 'names') === 'map' ? mappedColumns(context) : undefined;
	const chosenFields = mapped
		? Object.keys(mapped).filter((id) => !id.startsWith(CUSTOM_COLUMN_PREFIX))
		: get<string[]>('fieldsToSync', []);
	const chosenCustom = mapped
		? Object.keys(mapped)
				.filter((id) => id.startsWith(CUSTOM_COLUMN_PREFIX))
				.map((id) => id.slice(CUSTOM_COLUMN_PREFIX.length))
		: get<string[]>('customFieldsToSync', []);
	const fields = chosenFields.filter((name) => !identity.has(name) && !createOnly.includes(name));
	if (!fields.length && !chosenCustom.length && !createOnly.length) {
		throw new NodeOperationError(
			context.getNode(),
			mapped
				? 'Columns maps no field: map the fields the source owns'
				: 'Fields to Sync is empty: choose the fields the source owns',
			{ description: 'Only the fields chosen are compared and written.' },
		);
	}
	const unmapped = mapped ? [key, ...createOnly].filter((name) => !(name in mapped)) : [];
	if (unmapped.length) {
		throw new NodeOperationError(
			context.getNode(),
			`Columns does not map ${unmapped.map(fieldName).join(', ')}, which ${unmapped[0] === key ? 'Match On needs' : 'Fields Set Only When Creating lists'}`,
			{
				description:
					'Nothing was written. Map the column that holds it, or choose another Match On (or take it out of Fields Set Only When Creating).',
			},
		);
	}
	return {
		own: {
			key,
			fields,
			createOnly,
			customFields: await ownedCustomFields(context, cache, chosenCustom),
			absent: options.absentFields === 'clear' ? 'clear' : 'keep',
			isPlaceholder: placeholderTest(
				context.getNode(),
				options.placeholderKeys ?? DEFAULT_PLACEHOLDER_KEYS,
			),
			timezone: context.getTimezone(),
		},
		mapped,
	};
}

/** Each item's source columns: its own keys, or the mapped columns resolved for it. */
function readColumns(
	context: IExecuteFunctions,
	inputs: IDataObject[],
	own: Ownership,
	mapped: Record<string, string> | undefined,
): SourceColumns[] {
	if (!mapped) return inputs.map((json) => columnsByName(json, own));
	return inputs.map((_, i) => {
		const resolved = context.getNodeParameter('syncColumns', i, {}) as IDataObject;
		const value = isPlainObject(resolved.value) ? resolved.value : {};
		const fields: IDataObject = {};
		const customFields: IDataObject = {};
		for (const id of Object.keys(mapped)) {
			if (value[id] === undefined) continue;
			if (id.startsWith(CUSTOM_COLUMN_PREFIX))
				customFields[id.slice(CUSTOM_COLUMN_PREFIX.length)] = value[id] as IDataObject;
			else fields[id] = value[id] as IDataObject[string];
		}
		// mapped custom columns are plain values, as an item's customFields map holds them
		return columnsByName({ ...fields, customFields }, own);
	});
}

/** A plan's failure as n8n shows an item's: a node error naming the item. */
function failure(context: IExecuteFunctions, error: Error, item: number): Error {
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
function stoppedItem(error: unknown): INodeExecutionData {
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

/** How an asset is named in output and reports: its device name and who it is assigned to. */
const assetWords = (own: Ownership): RecordWords => ({
	noun: 'asset',
	nouns: 'assets',
	keyField: own.key,
	fieldLabel: (field) =>
		field.startsWith(CUSTOM_COLUMN_PREFIX)
			? (own.customFields.find(
					(definition) => `${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}` === field,
				)?.name ?? field)
			: fieldLabel(field),
	describe: (record) => ({
		name: typeof record.deviceName === 'string' ? record.deviceName : undefined,
		holder: isPlainObject(record.assignedTo)
			? String(record.assignedTo.name ?? record.assignedTo.email)
			: typeof record.assignedToEmail === 'string'
				? record.assignedToEmail
				: undefined,
	}),
});

export async function runAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const continueOnFail = this.continueOnFail();
	const planning = planRun.call(this, continueOnFail);
	const planned = continueOnFail ? await planning.catch(stoppedItem) : await planning;
	if ('json' in planned) return [planned];
	const { plan, own, retry, options, facts } = planned;
	const done = facts.dryRun ? plan : await writePlan(this, plan, { retry, continueOnFail });
	const words = assetWords(own);
	const failures = done.flatMap((entry) => {
		if (entry.action !== 'failed') return [];
		// a record the source does not have fails under its own name, paired with the first item
		return [
			entry.item === undefined
				? errorItem(entry.error, 0)
				: errorItem(failure(this, entry.error, entry.item), entry.item),
		];
	});
	if (options.output === 'summary') return [summaryItem(done, facts), ...failures];
	if (options.output === 'report')
		return [reportItem(done, words, facts, readReportLimit(this, options)), ...failures];
	return done.map((entry) =>
		entry.action === 'failed' ? failures.shift()! : recordItem(entry, words, facts),
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

interface Planned {
	plan: PlanEntry[];
	own: Ownership;
	retry: RetryPolicy;
	options: IDataObject;
	facts: RunFacts;
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

/** Everything before the first write: settings, source rows, the scope's walk, the plan, the guard. */
async function planRun(this: IExecuteFunctions, continueOnFail: boolean): Promise<Planned> {
	const node = this.getNode();
	// an export that came back empty reaches the node as no item, or (Always Output Data on the
	// node before) as one empty item: either is an empty input
	const given = this.getInputData().map((item) => item.json);
	const inputs = given.every((json) => !Object.keys(json).length) ? [] : given;
	const cache: ExecutionCache = new Map();
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const retry = readRetryPolicy(options);
	const limits = readGuardLimits(node, (name, fallback) =>
		this.getNodeParameter(name, 0, fallback),
	);
	const { own, mapped } = await readOwnership(this, cache);

	const columns = readColumns(this, inputs, own, mapped);
	if (inputs.length) {
		refuseAbsentColumns(
			node,
			absentColumns(columns, own, (field) =>
				mapped
					? {
							soughtAs: [...mappingReads(mapped[field]), field],
							where: `its mapping ${mapped[field]}`,
						}
					: { soughtAs: soughtAs(field, own), where: `the items' ${field}` },
			),
			mapped ? itemKeys(inputs) : [...itemKeys(inputs), ...customKeys(inputs)],
			mapped
				? 'Correct the mapping in Columns, or remove the field from it.'
				: "Rename the column (an Edit Fields node), map the export's own columns (Source Columns: Map Columns), or take the field out of the fields to sync.",
		);
	}
	const rows = columns.map((item, index) => readRow(index, item, own));
	const bad = rows.find((row) => row.error);
	// a bad row stops the run before anything is read or written, unless failures continue
	if (bad?.error && !continueOnFail) throw failure(this, bad.error, bad.item);

	const filterMode = this.getNodeParameter('filterMode', 0, 'none');
	const filter = await readFilter(assetSchema, {
		getParameter: (name, fallback) => this.getNodeParameter(name, 0, fallback),
		timezone: own.timezone,
		customFieldTypes: customFieldTypes(this, cache, 0),
	}).catch((error: unknown) => {
		throw toItemError(this, error, 0);
	});
	refuseEmptyScope(node, filterMode, filter !== undefined, 'asset');
	// missing is known only from a complete walk: a walk that fails writes nothing
	const scope = await collect(
		paginate.call(this, ASSETS_PATH, filter ? { filter: printFilter(filter) } : {}, {
			operation: 'list the assets in scope',
			pageSize: Math.min(Number(options.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE),
			itemIndex: 0,
			retry,
		}),
	);
	refuseEmptySource(node, inputs.length, scope.length, options.allowEmptySource === true, 'assets');

	const resolution = resolveRows(
		rows,
		scope,
		{ keyField: own.key, keyLabel: fieldLabel(own.key), noun: 'asset', nouns: 'assets' },
		own.isPlaceholder,
	);
	const missing = {
		action: this.getNodeParameter('missingRecords', 0, 'keep') as MissingRecords,
		status: this.getNodeParameter('missingStatus', 0, 'Retired') as string,
	};
	const planned = planSync(rows, resolution, scope, own, missing);
	const plan = await outOfScope(this, planned.entries, own, retry);
	const refusals = guardRefusals(planned, scope.length, limits, 'assets');
	const dryRun = readDryRun(this);
	const id = planId(plan);
	if (!dryRun) {
		throwRefusal(node, refusals);
		const approved = String(this.getNodeParameter('applyOnlyPlan', 0, '') ?? '').trim();
		refuseOtherPlan(this, approved, plan, id, assetWords(own));
	}
	const failed = plan.find((entry) => entry.action === 'failed');
	if (failed?.action === 'failed' && !continueOnFail)
		throw failure(this, failed.error, failed.item ?? 0);
	return {
		plan,
		own,
		retry,
		options,
		facts: { planId: id, dryRun, refusals, scope: scope.length, source: rows.length },
	};
}

/** Names a column might have in an export: the field's API name and its label ("Model Name"). */
function soughtAs(field: string, own: Ownership): string[] {
	const custom = own.customFields.find(
		(definition) => `${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}` === field,
	);
	if (custom) return [field, `${CUSTOM_COLUMN_PREFIX}${custom.name}`];
	return [field, assetSchema.fields[field]?.displayName ?? field];
}

/** The keys items use in their custom field maps, as `customFieldValues.<key>`. */
function customKeys(inputs: IDataObject[]): string[] {
	const maps = inputs.flatMap((json) =>
		[json.customFieldValues, json.customFields].filter(isPlainObject),
	);
	return itemKeys(maps).map((key) => `${CUSTOM_COLUMN_PREFIX}${key}`);
}

/** The input keys a mapping reads: `{{ $json.model }}`, `{{ $json["Serial number"] }}`. */
function mappingReads(mapping: string): string[] {
	const reads: string[] = [];
	for (const match of mapping.matchAll(/\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(["'])(.*?)\2\s*\])/g))
		reads.push(match[1] ?? match[3]);
	return reads;
}
