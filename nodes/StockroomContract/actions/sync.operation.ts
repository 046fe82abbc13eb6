import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { optionsProperty, pageSizeOption, readRetryPolicy } from '../../shared/descriptions/common';
import { filterProperties } from '../../shared/descriptions/filterUi';
import { writableScalars } from '../../shared/descriptions/recordFields';
import { showFor, showWhen } from '../../shared/descriptions/showFor';
import { CONTRACTS_PATH } from '../../shared/resources';
import { contractSchema, lineItemFields } from '../../shared/schema/contract';
import { isPlainObject } from '../../shared/schema/values';
import {
	itemKeys,
	mappingReads,
	refuseAbsentColumns,
	unreadColumns,
	withUnread,
} from '../../shared/sync/columns';
import type { MissingRecords } from '../../shared/sync/entries';
import { dateFormatOption, readExportFormats } from '../../shared/sync/exportText';
import { runProperties, sourceOptions } from '../../shared/sync/form';
import {
	countFailedRows,
	guardProperties,
	guardRefusals,
	readGuardLimits,
	refuseEmptySource,
} from '../../shared/sync/guard';
import { resolveRows } from '../../shared/sync/identity';
import { DEFAULT_PLACEHOLDER_KEYS, placeholderTest, prefixTest } from '../../shared/sync/keys';
import { SyncRefusal } from '../../shared/sync/refusal';
import { createsInScope, scopeRule } from '../../shared/sync/scope';
import { outOfScope } from '../../shared/sync/outOfScope';
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
import { groupContracts } from '../sync/group';
import { changeLabel } from '../sync/lines';
import { planContracts } from '../sync/plan';
import {
	absentColumns,
	columnsByName,
	fieldLabel,
	fieldName,
	LINE_PREFIX,
	readItem,
	type ContractOwnership,
	type InputShape,
	type ItemColumns,
} from '../sync/source';
import { writePlan } from '../sync/write';

const byLabel = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
const contractFields = writableScalars(contractSchema.fields)
	.filter(([name]) => name !== 'externalId')
	.map(([name, field]) => ({ name: field.displayName, value: name }));
const lineFieldOptions = writableScalars(lineItemFields)
	.filter(([name]) => name !== 'externalId')
	.map(([name, field]) => ({ name: field.displayName, value: name }))
	.sort(byLabel);

const lineFieldsToSync: INodeProperties = {
	displayName: 'Line Item Fields to Sync',
	name: 'lineItemFieldsToSync',
	type: 'multiOptions',
	options: lineFieldOptions,
	default: [],
	description:
		"The line item fields the source owns, compared and written on each line item; every other field of a line item is left as it is. None: the contracts' line items are not synced.",
};

const properties: INodeProperties[] = [
	{
		displayName:
			'Sync makes the contracts in scope match the input items, the complete set from one procurement or finance source: it creates what is new, updates the fields and line items to sync where they differ, and handles contracts in scope that the source no longer has. Contracts are matched on External ID (trimmed, case aside): map the purchase order number to it if that is the key the source has. Run it with Dry Run first.',
		name: 'syncNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Input Shape',
		name: 'inputShape',
		type: 'options',
		options: [
			{
				name: 'One Item per Line Item',
				value: 'lineItemRows',
				description:
					"A procurement export's rows: the contract's fields repeated on each of its line items' rows, grouped into contracts by External ID",
			},
			{
				name: 'One Item per Contract',
				value: 'contracts',
				description: 'Each item a contract, its line items nested in lineItems',
			},
		],
		default: 'lineItemRows',
	},
	{
		displayName: 'Source Columns',
		name: 'sourceColumns',
		type: 'options',
		options: [
			{
				name: 'Named as Contract Fields',
				value: 'names',
				description:
					"Each item's keys are the contract fields' API names (externalId, vendorName, ...); a row's line item's as lineItem.description, lineItem.amount and so on",
			},
			{
				name: 'Map Columns',
				value: 'map',
				description:
					'Map the export\'s own columns ("PO Number", "Unit Price") to contract and line item fields; the mapped fields are the ones synced',
			},
		],
		default: 'names',
	},
	...showWhen({ sourceColumns: ['names'] }, [
		{
			displayName: 'Fields to Sync',
			name: 'fieldsToSync',
			type: 'multiOptions',
			options: [...contractFields, { name: 'Documents', value: 'documents' }].sort(byLabel),
			default: [],
			description:
				"The contract fields the source owns, read from each input item's JSON by their API names: only these are compared and written (an empty value clears the field); every other field, and the documents unless chosen, are left as they are",
		},
		lineFieldsToSync,
	]),
	{
		...lineFieldsToSync,
		displayOptions: { show: { sourceColumns: ['map'], inputShape: ['contracts'] } },
	},
	{
		displayName: 'Columns',
		name: 'syncColumns',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['inputShape'],
			resourceMapper: {
				resourceMapperMethod: 'getContractSyncColumns',
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
		options: [...contractFields].sort(byLabel),
		default: [],
		description:
			'Contract fields used for new contracts only (e.g. Type, Payment Method): never compared or written on existing contracts, so what people keep there stays. Read like the fields to sync.',
	},
	...filterProperties(contractSchema, { listField: 'lineItems', resourceLabel: 'contracts' }).map(
		(property) =>
			property.name === 'filterMode'
				? {
						...property,
						displayName: 'Scope',
						description:
							'The contracts this source owns (e.g. Vendor Name or External ID starts with PO-): only these are compared, and missing ones handled. None: every contract.',
					}
				: property,
	),
	{
		displayName: 'Missing Records',
		name: 'missingRecords',
		type: 'options',
		options: [
			{ name: 'Keep', value: 'keep', description: 'Leave them as they are (listed as missing)' },
			{ name: 'Delete', value: 'delete', description: 'Delete them from the service' },
		],
		default: 'keep',
		description: 'What to do with contracts in scope that no input item has',
	},
	{
		displayName: 'Source Owns the Whole Line Item List',
		name: 'wholeLineItemList',
		type: 'boolean',
		default: false,
		description:
			"Whether each contract's line items are exactly the source's: line items without External ID are allowed and replace the contract's, and line items the source does not have are removed. Off, every line item needs an External ID and is matched by it.",
	},
	{
		displayName: 'Line Items',
		name: 'missingLineItems',
		type: 'options',
		options: [
			{
				name: 'Keep the Ones the Source No Longer Has',
				value: 'keep',
				description: "A contract's line items that no row has stay as they are",
			},
			{
				name: 'Remove Them',
				value: 'remove',
				description:
					"A contract's line items (with an External ID) that the source no longer has are removed",
			},
		],
		default: 'keep',
		description:
			"What to do with a contract's line items that the source no longer has (line items without External ID are never touched)",
		displayOptions: { show: { wholeLineItemList: [false] } },
	},
	{
		displayName: 'Line Items the Source Owns',
		name: 'lineItemsOwned',
		type: 'options',
		options: [
			{
				name: 'Shaped Like the Source’s',
				value: 'shape',
				description:
					'Line items whose External ID has the form of one the source gives (L-3 like L-17; not MANUAL-1 or FREIGHT, which people added)',
			},
			{
				name: 'Matching a Pattern',
				value: 'pattern',
				description: 'Line items whose External ID starts with a prefix, or matches /.../',
			},
			{
				name: 'Any Line Item',
				value: 'any',
				description: 'Every line item the source no longer has is removed, one a person added too',
			},
		],
		default: 'shape',
		description:
			'Which line items Remove Them may remove; the others are kept and listed (reason). Lines a person adds by hand (freight, a discount) have references no feed knows.',
		displayOptions: { show: { wholeLineItemList: [false], missingLineItems: ['remove'] } },
	},
	{
		displayName: 'Line Item External IDs',
		name: 'lineItemPattern',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		placeholder: 'e.g. PO-',
		description:
			'Prefixes of the External IDs of line items the source owns, one per line, case aside; /.../ is a regular expression',
		displayOptions: {
			show: {
				wholeLineItemList: [false],
				missingLineItems: ['remove'],
				lineItemsOwned: ['pattern'],
			},
		},
	},
	...runProperties(),
	...guardProperties('contracts', 'delete', true),
	optionsProperty(
		...sourceOptions({
			noun: 'contract',
			nouns: 'contracts',
			fillers: 'such as N/A, None, 0 or TBD',
			changes: 'each field and line item',
		}),
		dateFormatOption,
		{
			displayName: 'Number Format',
			name: 'numberFormat',
			type: 'options',
			options: [
				{ name: '1,234.56', value: 'dotDecimal' },
				{ name: '1.234,56', value: 'commaDecimal' },
			],
			default: 'dotDecimal',
			description:
				'How the export writes amounts and counts given as text; a currency sign or code before or after the number ($1,234.56, 1.234,56 EUR) is left out',
		},
		pageSizeOption('Contracts read'),
	),
];

export const description = showFor(['sync'], properties);

/** Sync's settings are the node's, for the input as one set: read at the first item. */
function readOwnership(context: IExecuteFunctions): {
	own: ContractOwnership;
	mapped?: Record<string, string>;
} {
	const node = context.getNode();
	const get = <T>(name: string, fallback: T) => context.getNodeParameter(name, 0, fallback) as T;
	const shape = get<InputShape>('inputShape', 'lineItemRows');
	const options = get<IDataObject>('options', {});
	const wholeList = get<boolean>('wholeLineItemList', false);
	const createOnly = get<string[]>('createOnlyFields', []).filter((name) => name !== 'externalId');
	const mapped =
		get<string>('sourceColumns', 'names') === 'map' ? mappedColumns(context) : undefined;
	const isLine = (id: string) => id.startsWith(LINE_PREFIX) || id === 'lineItems';
	const chosenFields = mapped
		? Object.keys(mapped).filter((id) => !isLine(id))
		: get<string[]>('fieldsToSync', []);
	const lineFields =
		mapped && shape === 'lineItemRows'
			? Object.keys(mapped)
					.filter((id) => id.startsWith(LINE_PREFIX))
					.map((id) => id.slice(LINE_PREFIX.length))
					.filter((name) => name !== 'externalId')
			: get<string[]>('lineItemFieldsToSync', []);
	const fields = chosenFields.filter((name) => name !== 'externalId' && !createOnly.includes(name));
	const refuse = (message: string, description: string) => {
		throw new SyncRefusal(node, 'settings', message, `Nothing was written. ${description}`);
	};
	if (!fields.length && !lineFields.length && !createOnly.length)
		refuse(
			mapped
				? 'Columns maps no field: map the fields the source owns'
				: 'Fields to Sync and Line Item Fields to Sync are empty: choose the fields the source owns',
			'Only the fields chosen are compared and written.',
		);
	if (wholeList && !lineFields.length)
		refuse(
			'Source Owns the Whole Line Item List needs line item fields to sync',
			'Choose the line item fields the source owns, or turn the option off.',
		);
	if (mapped) {
		const foreign = Object.keys(mapped).filter((id) =>
			shape === 'lineItemRows' ? id === 'lineItems' : id.startsWith(LINE_PREFIX),
		);
		const needed = [
			'externalId',
			...createOnly,
			...(shape === 'contracts' && lineFields.length ? ['lineItems'] : []),
			...(shape === 'lineItemRows' && lineFields.length && !wholeList
				? [`${LINE_PREFIX}externalId`]
				: []),
		].filter((id) => !(id in mapped));
		if (foreign.length)
			refuse(
				`Columns maps ${foreign.map(fieldName).join(', ')}, which Input Shape ${shape === 'lineItemRows' ? 'One Item per Line Item' : 'One Item per Contract'} does not read`,
				'Remove the mapping, or choose the other Input Shape.',
			);
		if (needed.length)
			refuse(
				`Columns does not map ${needed.map(fieldName).join(', ')}, which the sync needs (External ID matches contracts, a line item's External ID matches line items, and Fields Set Only When Creating are read from it)`,
				'Map the column that holds it.',
			);
	}
	const removes = !wholeList && get<string>('missingLineItems', 'keep') === 'remove';
	const ownedBy = removes ? get<string>('lineItemsOwned', 'shape') : 'shape';
	const pattern = ownedBy === 'pattern' ? get<string>('lineItemPattern', '') : '';
	if (ownedBy === 'pattern' && !pattern.trim())
		refuse(
			'Line Item External IDs is empty: give the prefixes (or /.../) of the line items the source owns',
			'Line Items the Source Owns: Matching a Pattern removes only line items whose External ID matches.',
		);
	// only dates: no date-times, so no Timezone of Dates Without One (a date is the day written)
	const formats = readExportFormats(node, options, {
		numbers: 'dotDecimal',
		zone: context.getTimezone(),
	});
	return {
		own: {
			shape,
			fields,
			createOnly,
			lineFields,
			missingLineItems: get<string>('missingLineItems', 'keep') === 'remove' ? 'remove' : 'keep',
			linesOwned:
				ownedBy === 'any'
					? { kind: 'any' }
					: ownedBy === 'pattern'
						? { kind: 'pattern', test: prefixTest(node, pattern, 'Line Item External IDs') }
						: { kind: 'shape' },
			wholeList,
			absent: options.absentFields === 'clear' ? 'clear' : 'keep',
			isPlaceholder: placeholderTest(node, options.placeholderKeys ?? DEFAULT_PLACEHOLDER_KEYS),
			timezone: context.getTimezone(),
			formats,
			node,
		},
		mapped,
	};
}

/** Each item's columns: its own keys, or the mapped columns resolved for it. */
function readColumns(
	context: IExecuteFunctions,
	inputs: IDataObject[],
	own: ContractOwnership,
	mapped: Record<string, string> | undefined,
): ItemColumns[] {
	if (!mapped) return inputs.map((json) => columnsByName(json, own));
	return inputs.map((_, i) => {
		const resolved = context.getNodeParameter('syncColumns', i, {}) as IDataObject;
		const value = isPlainObject(resolved.value) ? resolved.value : {};
		const columns: ItemColumns = { fields: {} };
		for (const id of Object.keys(mapped)) {
			if (value[id] === undefined) continue;
			if (id === 'lineItems') columns.lines = value[id];
			else if (id.startsWith(LINE_PREFIX))
				(columns.line ??= {})[id.slice(LINE_PREFIX.length)] = value[id] as IDataObject[string];
			else columns.fields[id] = value[id] as IDataObject[string];
		}
		return columns;
	});
}

/** How a contract is named in output and reports: its vendor and its business owner. */
export const contractWords: RecordWords = {
	noun: 'contract',
	nouns: 'contracts',
	keyField: 'externalId',
	fieldLabel: (change) => changeLabel(change, fieldLabel),
	prominent: (field) => field === 'businessOwnerEmail',
	describe: (record) => ({
		name: typeof record.vendorName === 'string' ? record.vendorName : undefined,
		holder: typeof record.businessOwnerEmail === 'string' ? record.businessOwnerEmail : undefined,
	}),
};

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
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const retry = readRetryPolicy(options);
	const limits = readGuardLimits(node, (name, fallback) =>
		this.getNodeParameter(name, 0, fallback),
	);
	const { own, mapped } = readOwnership(this);

	const columns = readColumns(this, inputs, own, mapped);
	if (inputs.length) {
		refuseAbsentColumns(
			node,
			withUnread(
				absentColumns(columns, own, (column) =>
					mapped
						? {
								// a nested line item's column comes from the mapping of Line Items
								soughtAs: [...mappingReads(mapped[column] ?? mapped.lineItems), column],
								where: `${column in mapped ? '' : 'the line items of '}its mapping ${mapped[column] ?? mapped.lineItems}`,
							}
						: { soughtAs: [column, fieldLabel(column)], where: `the items' ${column}` },
				),
				mapped && unreadColumns(mapped, inputs, fieldName),
			),
			itemKeys(inputs),
			mapped
				? 'Correct the mapping in Columns, or remove the field from it.'
				: "Rename the column (an Edit Fields node), map the export's own columns (Source Columns: Map Columns), or take the field out of the fields to sync.",
		);
	}
	const read = columns.map((item, index) => readItem(index, item, own));
	const sources = groupContracts(read, own);
	// a bad row, or rows that disagree, stop the run before anything is read or written, unless
	// failures continue
	const bad = sources.find((source) => source.error);
	if (bad?.error && !continueOnFail) throw failure(this, bad.error, bad.errorItem ?? bad.item);

	const { records: scope, filter } = await walkScope(this, {
		schema: contractSchema,
		path: CONTRACTS_PATH,
		nouns: 'contracts',
		timezone: own.timezone,
		retry,
		options,
		listField: 'lineItems',
	});
	refuseEmptySource(
		node,
		inputs.length,
		scope.length,
		options.allowEmptySource === true,
		'contracts',
	);
	const resolution = resolveRows(
		sources,
		scope,
		{ keyField: 'externalId', keyLabel: 'External ID', noun: 'contract', nouns: 'contracts' },
		own.isPlaceholder,
	);
	const missing = this.getNodeParameter('missingRecords', 0, 'keep') as MissingRecords;
	const rule = scopeRule(filter, contractSchema);
	const planned = planContracts(sources, resolution, scope, own, missing, rule);
	const lookedUp = await outOfScope(this, planned.entries, {
		path: CONTRACTS_PATH,
		noun: 'contract',
		nouns: 'contracts',
		label: fieldLabel,
		sought: (entry) =>
			entry.action === 'created' ? [['externalId', String(entry.body.externalId)]] : [],
		retry,
	});
	const plan = createsInScope(lookedUp, rule, ['contract', 'contracts']);
	const refusals = guardRefusals(
		{ ...planned, failedRows: countFailedRows(plan, inputs.length) },
		scope.length,
		limits,
		'contracts',
	);
	return {
		resource: 'contract',
		plan,
		words: contractWords,
		retry,
		options,
		facts: {
			...concludePlan(this, {
				plan,
				refusals,
				words: contractWords,
				continueOnFail,
				scope,
				inputs,
			}),
			scope: scope.length,
			source: inputs.length,
		},
	};
}
