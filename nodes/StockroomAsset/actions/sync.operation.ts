import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { CUSTOM_COLUMN_PREFIX } from '../../shared/columns';
import { optionsProperty, pageSizeOption, readRetryPolicy } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { writableScalars } from '../../shared/descriptions/recordFields';
import { showFor, showWhen } from '../../shared/descriptions/showFor';
import { ASSETS_PATH } from '../../shared/resources';
import type { ExecutionCache } from '../../shared/runItems';
import { ASSET_STATUSES, assetSchema } from '../../shared/schema/asset';
import { enumLabel } from '../../shared/schema/fields';
import { findDefinition } from '../../shared/schema/validate';
import { didYouMean, isPlainObject } from '../../shared/schema/values';
import {
	itemKeys,
	mappingReads,
	refuseAbsentColumns,
	unreadColumns,
	withUnread,
} from '../../shared/sync/columns';
import type { MissingRecords } from '../../shared/sync/entries';
import { runProperties, sourceOptions } from '../../shared/sync/form';
import { dateFormatOption, readExportFormats, timezoneOption } from '../../shared/sync/exportText';
import {
	countFailedRows,
	guardProperties,
	guardRefusals,
	readGuardLimits,
	refuseEmptySource,
} from '../../shared/sync/guard';
import { resolveRows } from '../../shared/sync/identity';
import { DEFAULT_PLACEHOLDER_KEYS, keyForm, placeholderTest } from '../../shared/sync/keys';
import type { RecordWords } from '../../shared/sync/output';
import {
	concludePlan,
	failure,
	mappedColumns,
	readInputs,
	runSync,
	walkScope,
	type Planned,
} from '../../shared/sync/run';
import { customFieldDefinitions, customFieldTypes } from '../customFields';
import { planSync, type MissingHandling } from '../sync/plan';
import { SyncRefusal } from '../../shared/sync/refusal';
import { createsInScope, scopeRule } from '../../shared/sync/scope';
import { wrapCustomValue } from '../../shared/schema/customValues';
import {
	absentColumns,
	columnName,
	columnsByName,
	fieldLabel,
	fieldName,
	ownedCustomField,
	readRow,
	SYNC_KEYS,
	type Ownership,
	type SourceColumns,
	type SourceRow,
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
		displayName: 'Returning Records',
		name: 'returningRecords',
		type: 'options',
		options: [
			{
				name: 'Restore Status',
				value: 'restore',
				description:
					'Set their status to the one the row gives a new asset (Status synced, or under Fields Set Only When Creating): action restored, guarded like removals',
			},
			{
				name: 'Leave As It Is',
				value: 'leave',
				description:
					'Keep the status; each run lists them (returnedNotRestored), e.g. when people retire devices by hand that linger in the source',
			},
		],
		default: 'restore',
		description:
			'What to do with an asset the source has again whose status is the status above (a laptop back from repair, a device missing from one export)',
		displayOptions: { show: { missingRecords: ['setStatus'] } },
	},
	...runProperties(),
	...guardProperties('assets'),
	optionsProperty(
		...sourceOptions({
			noun: 'asset',
			nouns: 'assets',
			fillers: 'BIOS and MDM fillers such as To Be Filled By O.E.M.',
			changes: 'each field',
		}),
		dateFormatOption,
		timezoneOption,
		pageSizeOption('Assets read'),
	),
];

export const description = showFor(['sync'], properties);

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
			throw new SyncRefusal(
				context.getNode(),
				'settings',
				`Custom field "${name}" is not one of the service's asset custom fields${didYouMean(
					name,
					definitions.map((candidate) => candidate.name),
				)}`,
				`Nothing was written. The custom fields are: ${definitions.map((candidate) => `${candidate.name} (${candidate.lookupKey})`).join(', ')}.`,
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
		throw new SyncRefusal(
			context.getNode(),
			'settings',
			mapped
				? 'Columns maps no field: map the fields the source owns'
				: 'Fields to Sync is empty: choose the fields the source owns',
			'Nothing was written. Only the fields chosen are compared and written.',
		);
	}
	const unmapped = mapped ? [key, ...createOnly].filter((name) => !(name in mapped)) : [];
	if (unmapped.length) {
		throw new SyncRefusal(
			context.getNode(),
			'settings',
			`Columns does not map ${unmapped.map(fieldName).join(', ')}, which ${unmapped[0] === key ? 'Match On needs' : 'Fields Set Only When Creating lists'}`,
			'Nothing was written. Map the column that holds it, or choose another Match On (or take it out of Fields Set Only When Creating).',
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
			formats: readExportFormats(context.getNode(), options, {
				numbers: 'plain',
				zone: context.getTimezone(),
			}),
			node: context.getNode(),
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

/** How an asset is named in output and reports: its device name and who it is assigned to. */
export const assetWords = (own: Pick<Ownership, 'key' | 'customFields'>): RecordWords => ({
	noun: 'asset',
	nouns: 'assets',
	keyField: own.key,
	fieldLabel: (field) =>
		field.startsWith(CUSTOM_COLUMN_PREFIX)
			? (ownedCustomField(own, field)?.name ?? field)
			: fieldLabel(field),
	prominent: (field) => ['status', 'assignedToEmail'].includes(field),
	routine: (field) => ['lastSyncDtm', 'enrolledDtm'].includes(field),
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
	return await runSync(
		this,
		async (continueOnFail) => await planRun.call(this, continueOnFail),
		async (plan, settings) => await writePlan(this, plan, settings),
	);
}

/** Everything before the first write: settings, source rows, the scope's walk, the plan, the guard. */
async function planRun(this: IExecuteFunctions, continueOnFail: boolean): Promise<Planned> {
	const node = this.getNode();
	const inputs = readInputs(this);
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
			withUnread(
				absentColumns(columns, own, (field) =>
					mapped
						? {
								soughtAs: [...mappingReads(mapped[field]), field],
								where: `its mapping ${mapped[field]}`,
							}
						: { soughtAs: soughtAs(field, own), where: `the items' ${field}` },
				),
				mapped && unreadColumns(mapped, inputs, (field) => columnName(field, own)),
			),
			mapped ? itemKeys(inputs) : [...itemKeys(inputs), ...customKeys(inputs)],
			mapped
				? 'Correct the mapping in Columns, or remove the field from it.'
				: "Rename the column (an Edit Fields node), map the export's own columns (Source Columns: Map Columns), or take the field out of the fields to sync.",
		);
	}
	const rows = columns.map((item, index) => readRow(index, item, own));
	refuseOneKey(node, rows, own, mapped);
	const bad = rows.find((row) => row.error);
	// a bad row stops the run before anything is read or written, unless failures continue
	if (bad?.error && !continueOnFail) throw failure(this, bad.error, bad.item);

	const { records: scope, filter } = await walkScope(this, {
		schema: assetSchema,
		path: ASSETS_PATH,
		nouns: 'assets',
		timezone: own.timezone,
		retry,
		options,
		customFieldTypes: customFieldTypes(this, cache, 0),
	});
	refuseEmptySource(node, inputs.length, scope.length, options.allowEmptySource === true, 'assets');

	const resolution = resolveRows(
		rows,
		scope,
		{ keyField: own.key, keyLabel: fieldLabel(own.key), noun: 'asset', nouns: 'assets' },
		own.isPlaceholder,
	);
	const missing: MissingHandling = {
		action: this.getNodeParameter('missingRecords', 0, 'keep') as MissingRecords,
		status: this.getNodeParameter('missingStatus', 0, 'Retired') as string,
		returning:
			this.getNodeParameter('returningRecords', 0, 'restore') === 'leave' ? 'leave' : 'restore',
	};
	const rule = scopeRule(filter, assetSchema);
	// the definitions only when the scope fixes a custom field (read once per execution)
	const definitions = rule.fixed.some((fixed) => fixed.kind === 'custom')
		? await customFieldDefinitions(this, cache, 0)
		: [];
	const wrapCustom = (name: string, value: unknown) => {
		const definition = findDefinition(name, definitions);
		return definition
			? {
					key: definition.lookupKey,
					value: wrapCustomValue(value, definition, own.timezone) as IDataObject,
				}
			: undefined;
	};
	const planned = planSync(rows, resolution, scope, own, missing, {
		rule,
		wrapCustom,
		definitions,
	});
	const plan = createsInScope(await outOfScope(this, planned.entries, own, retry), rule, [
		'asset',
		'assets',
	]);
	const words = assetWords(own);
	const refusals = guardRefusals(
		{ ...planned, failedRows: countFailedRows(plan, inputs.length) },
		scope.length,
		limits,
		'assets',
	);
	return {
		resource: 'asset',
		plan,
		words,
		retry,
		options,
		facts: {
			...concludePlan(this, { plan, refusals, words, continueOnFail, scope, inputs }),
			scope: scope.length,
			source: rows.length,
		},
	};
}

/**
 * Every row with the same key is an export that lost its key column where the mapping cannot
 * show it (`'MDM-' + $json[...]` with a name built at run time gives every row "MDM-undefined"),
 * or one that repeats a value down the column: refused, before anything is read or written.
 */
function refuseOneKey(
	node: INode,
	rows: readonly SourceRow[],
	own: Ownership,
	mapped: Record<string, string> | undefined,
): void {
	const [first] = rows;
	if (rows.length < 2 || first.key === undefined) return;
	const form = keyForm(first.key);
	if (!rows.every((row) => row.key !== undefined && keyForm(row.key) === form)) return;
	throw new SyncRefusal(
		node,
		'columns',
		`Sync refused: every input item has the ${fieldName(own.key)} "${first.key}"`,
		[
			`Nothing was written. ${rows.length} items with one key would be one ${assetSchema.noun}: the column that holds the key is missing or the export repeats one value down it.`,
			mapped
				? `Check the mapping of ${fieldName(own.key)} in Columns (${mapped[own.key]}): does every item have the column it reads?`
				: `Check the items' ${own.key}.`,
		].join('\n'),
	);
}

/** Names a column might have in an export: the field's API name and its label ("Model Name"). */
function soughtAs(field: string, own: Ownership): string[] {
	const custom = ownedCustomField(own, field);
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
