import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import {
	listProperty,
	optionalFieldProperties,
	requiredFieldProperties,
} from '../../shared/descriptions/recordFields';
import { showFor, showWhen } from '../../shared/descriptions/showFor';
import { inputModeProperty, readFormFields, readInputRecord } from '../../shared/inputRecord';
import { normalizeRecord, readListElements, withoutReadOnly } from '../../shared/records';
import { CONTRACTS_PATH } from '../../shared/resources';
import { InvalidItemError } from '../../shared/runItems';
import { contractSchema } from '../../shared/schema/contract';
import type { ListField } from '../../shared/schema/fields';
import { validateRecord } from '../../shared/schema/validate';
import { WRITES_AT_ONCE } from '../../shared/pool';
import { apiRequest } from '../../shared/transport';
import {
	mergeFormProperties,
	upsertBatch,
	readUpsertMode,
	upsertModeProperties,
	writeInTurn,
	type UpsertItem,
} from '../../shared/upsertMode';

const lineItems = contractSchema.fields.lineItems as ListField;
const documents = contractSchema.fields.documents as ListField;

const requiredFields = requiredFieldProperties(contractSchema);

const [externalIdField] = mergeFormProperties(contractSchema);

const properties: INodeProperties[] = [
	...upsertModeProperties('contract'),
	{
		displayName:
			'Merge reads each contract, then writes it back with your fields: a change someone else makes to another field in between is overwritten (the service has no partial update for contracts)',
		name: 'mergeNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { mode: ['merge'] } },
	},
	inputModeProperty('contract'),
	...showWhen({ inputMode: ['fields'], mode: ['replace'] }, [
		...requiredFields,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: optionalFieldProperties(contractSchema),
		},
	]),
	...showWhen({ inputMode: ['fields'], mode: ['merge'] }, mergeFormProperties(contractSchema)),
	...showWhen({ inputMode: ['fields'] }, [
		{
			displayName:
				'How line items update: a line item with an External ID updates the existing line item with that External ID (and existing ones whose External ID is not sent are removed); line items without an External ID replace all existing line items that have none. With no line items here, the contract keeps its line items.',
			name: 'lineItemsNotice',
			type: 'notice',
			default: '',
		},
		listProperty('lineItemsUi', lineItems),
		listProperty('documentsUi', documents, {
			description: 'With no documents here, the contract keeps its documents',
		}),
	]),
	optionsProperty(
		{
			displayName: 'Ignore Unknown Fields',
			name: 'ignoreUnknownFields',
			type: 'boolean',
			default: false,
			description:
				'Whether to leave out fields of the input item that contracts do not have, instead of failing the item',
			displayOptions: { show: { '/inputMode': ['json'] } },
		},
		{
			displayName: 'Remove All Documents',
			name: 'clearDocuments',
			type: 'boolean',
			default: false,
			description: 'Whether to remove the existing documents when no documents are given',
			displayOptions: { show: { '/inputMode': ['fields'] } },
		},
		{
			displayName: 'Remove All Line Items',
			name: 'clearLineItems',
			type: 'boolean',
			default: false,
			description: 'Whether to remove the existing line items when no line items are given',
			displayOptions: { show: { '/inputMode': ['fields'] } },
		},
	),
];

export const description = showFor(['upsert'], properties);

/** Several items are written at once; items with the same External ID take turns (upsertBatch). */
export const concurrency = WRITES_AT_ONCE;
export const writes = true;

/** Line items or documents from the UI; none given means "keep", unless clearing was asked for. */
function readList(
	raw: unknown,
	field: ListField,
	clear: boolean,
	timezone: string,
): IDataObject[] | undefined {
	const elements = readListElements(raw, field.fields, timezone);
	if (elements.length) return elements;
	return clear ? [] : undefined;
}

export async function prepare(this: IExecuteFunctions, i: number): Promise<UpsertItem> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const timezone = this.getTimezone();
	const mode = readUpsertMode(this, i);
	const { record, unknownFields } = readInputRecord.call(this, i, contractSchema, () => {
		const record =
			mode === 'merge'
				? readFormFields.call(this, i, contractSchema, [externalIdField], 'fieldsToSet')
				: readFormFields.call(this, i, contractSchema, requiredFields);
		const items = readList(
			this.getNodeParameter('lineItemsUi', i, {}),
			lineItems,
			options.clearLineItems === true,
			timezone,
		);
		const docs = readList(
			this.getNodeParameter('documentsUi', i, {}),
			documents,
			options.clearDocuments === true,
			timezone,
		);
		if (items) record.lineItems = items;
		if (docs) record.documents = docs;
		return record;
	});
	const issues = validateRecord(contractSchema, record, {
		mode: mode === 'merge' ? 'patch' : 'replace',
		unknownFields,
	});
	if (mode === 'merge' && !record.externalId) {
		issues.unshift({
			path: 'externalId',
			label: 'External ID',
			message: 'is required: it finds the contract to merge into',
		});
	}
	if (issues.length) throw new InvalidItemError('contract', issues);
	return { body: record, retry: readRetryPolicy(options), mode, validation: { unknownFields } };
}

export const batch = upsertBatch(contractSchema, CONTRACTS_PATH, 'contracts');

/**
 * The stored contract with the given fields over it (a field given as null is cleared). Line
 * items and documents are sent only when given: left out, the service keeps them.
 */
function merged(existing: IDataObject, changes: IDataObject, timezone: string): IDataObject {
	const record = withoutReadOnly(
		contractSchema.fields,
		normalizeRecord(contractSchema.fields, existing, timezone),
	);
	for (const key of ['id', 'lineItems', 'documents']) delete record[key];
	for (const [key, value] of Object.entries(changes)) {
		if (value === null) delete record[key];
		else record[key] = value;
	}
	return record;
}

export async function execute(
	this: IExecuteFunctions,
	item: UpsertItem,
	i: number,
): Promise<IDataObject[]> {
	const write = async (existing: IDataObject | undefined) => {
		// the contract as it is now, read just before the write: the batch lookup ran before any
		// item was written, and a change made since would otherwise be overwritten
		const current = existing
			? await apiRequest.call(this, 'GET', `${CONTRACTS_PATH}/${String(existing.id)}`, {
					operation: `read the contract "${String(item.body.externalId)}" to merge into it`,
					answer: 'record',
					itemIndex: i,
					retry: item.retry,
				})
			: undefined;
		const body = current ? merged(current, item.body, this.getTimezone()) : item.body;
		return await apiRequest.call(this, 'PUT', CONTRACTS_PATH, {
			body,
			operation: `create or update the contract "${String(body.externalId)}"`,
			answer: 'record',
			itemIndex: i,
			retry: item.retry,
		});
	};
	return [await writeInTurn(this, item, write)];
}
