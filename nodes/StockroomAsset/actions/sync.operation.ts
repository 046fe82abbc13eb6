import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { optionsProperty, pageSizeOption, readRetryPolicy } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { writableScalars } from '../../shared/descriptions/recordFields';
import { showFor } from '../../shared/descriptions/showFor';
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
import { collect, MAX_PAGE_SIZE, paginate, type RetryPolicy } from '../../shared/transport';
import { customFieldDefinitions, customFieldTypes } from '../customFields';
import { checkGuard, DEFAULT_MAX_REMOVAL_PERCENT, refuseEmptySource } from '../sync/guard';
import {
	planSync,
	readRow,
	SYNC_KEYS,
	type MissingRecords,
	type Ownership,
	type PlanEntry,
} from '../sync/plan';
import { outOfScope, syncOutput, writePlan } from '../sync/write';

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
			'The field that pairs an input item with an asset; it must be unique in the source and in the scope',
	},
	{
		displayName: 'Fields to Sync',
		name: 'fieldsToSync',
		type: 'multiOptions',
		options: writableScalars(assetSchema.fields)
			.map(([name, field]) => ({ name: field.displayName, value: name }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: [],
		required: true,
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
			'Custom fields the source owns, read from the item\'s customFieldValues (e.g. {"costCenter": {"textValue": "CC-1"}}). Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
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
		description: 'Whether to only show what would change (the same output), writing nothing',
	},
	optionsProperty(
		{
			displayName: 'Allow Empty Source',
			name: 'allowEmptySource',
			type: 'boolean',
			default: false,
			description:
				'Whether an input with no usable item may handle every asset in scope as missing. Off, such a run is refused (a source that returned nothing is usually a failed export).',
		},
		{
			displayName: 'Max Removals (%)',
			name: 'maxRemovalPercent',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: DEFAULT_MAX_REMOVAL_PERCENT,
			description:
				'The most assets one run may retire or delete, as a share of the scope; above it the run writes nothing and fails',
		},
		{
			displayName: 'Max Removals (Count)',
			name: 'maxRemovals',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				'The most assets one run may retire or delete, as a number (0: no limit by count, the share still applies)',
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
				{ name: 'Summary', value: 'summary', description: 'One item counting each action' },
			],
			default: 'records',
		},
		pageSizeOption('Assets read'),
	),
];

export const description = showFor(['sync'], properties);

/** Sync's settings are the node's, for the input as one set: read at the first item. */
async function readOwnership(
	context: IExecuteFunctions,
	cache: ExecutionCache,
): Promise<Ownership> {
	const fields = context.getNodeParameter('fieldsToSync', 0, []) as string[];
	const customFields = context.getNodeParameter('customFieldsToSync', 0, []) as string[];
	if (!fields.length && !customFields.length) {
		throw new NodeOperationError(
			context.getNode(),
			'Fields to Sync is empty: choose the fields the source owns',
			{ description: 'Only the fields chosen are compared and written.' },
		);
	}
	return {
		key: context.getNodeParameter('syncKey', 0, 'externalId') as Ownership['key'],
		fields,
		customFields,
		customFieldDefinitions: customFields.length
			? await customFieldDefinitions(context, cache, 0)
			: undefined,
		timezone: context.getTimezone(),
	};
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

export async function runAll(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const continueOnFail = this.continueOnFail();
	const planning = planRun.call(this, continueOnFail);
	const planned = continueOnFail ? await planning.catch(stoppedItem) : await planning;
	if ('json' in planned) return [planned];
	const { plan, own, retry, options, scopeSize, sourceSize } = planned;
	const dryRun = this.getNodeParameter('dryRun', 0, false) as boolean;
	const done = dryRun ? plan : await writePlan(this, plan, { retry, continueOnFail });
	if (options.output === 'summary')
		return [syncOutput.summary(done, scopeSize, sourceSize, dryRun)];
	return done.map((entry) => {
		if (entry.action !== 'failed') return syncOutput.record(entry, own, dryRun);
		// a record the source does not have fails under its own name, paired with the first item
		return entry.item === undefined
			? errorItem(entry.error, 0)
			: errorItem(failure(this, entry.error, entry.item), entry.item);
	});
}

interface Planned {
	plan: PlanEntry[];
	own: Ownership;
	retry: RetryPolicy;
	options: IDataObject;
	scopeSize: number;
	sourceSize: number;
}

/** Everything before the first write: settings, source rows, the scope's walk, the plan, the guard. */
async function planRun(this: IExecuteFunctions, continueOnFail: boolean): Promise<Planned> {
	const inputs = this.getInputData().map((item) => item.json);
	const cache: ExecutionCache = new Map();
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const retry = readRetryPolicy(options);
	const own = await readOwnership(this, cache);

	const rows = inputs.map((json, item) => readRow(json, item, own));
	const bad = rows.find((row) => row.error);
	// a bad row stops the run before anything is read or written, unless failures continue
	if (bad?.error && !continueOnFail) throw failure(this, bad.error, bad.item);

	const filter = await readFilter(assetSchema, {
		getParameter: (name, fallback) => this.getNodeParameter(name, 0, fallback),
		timezone: own.timezone,
		customFieldTypes: customFieldTypes(this, cache, 0),
	}).catch((error: unknown) => {
		throw toItemError(this, error, 0);
	});
	// missing is known only from a complete walk: a walk that fails writes nothing
	const scope = await collect(
		paginate.call(this, ASSETS_PATH, filter ? { filter: printFilter(filter) } : {}, {
			operation: 'list the assets in scope',
			pageSize: Math.min(Number(options.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE),
			itemIndex: 0,
			retry,
		}),
	);
	refuseEmptySource(this, rows, scope.length, options.allowEmptySource === true);

	const missing = {
		action: this.getNodeParameter('missingRecords', 0, 'keep') as MissingRecords,
		status: this.getNodeParameter('missingStatus', 0, 'Retired') as string,
	};
	const plan = await outOfScope(this, planSync(rows, inputs, scope, own, missing), own, retry);
	checkGuard(this, plan, scope.length, options);
	const failed = plan.find((entry) => entry.action === 'failed');
	if (failed?.action === 'failed' && !continueOnFail)
		throw failure(this, failed.error, failed.item ?? 0);
	return { plan, own, retry, options, scopeSize: scope.length, sourceSize: inputs.length };
}
