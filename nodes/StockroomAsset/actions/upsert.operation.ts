import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import {
	optionalFieldProperties,
	requiredFieldProperties,
} from '../../shared/descriptions/recordFields';
import { showFor, showWhen } from '../../shared/descriptions/showFor';
import { inputModeProperty, readFormFields, readInputRecord } from '../../shared/inputRecord';
import { columnsProperty, readColumns } from '../../shared/columns';
import { ASSETS_PATH } from '../../shared/resources';
import { InvalidItemError, type ExecutionCache } from '../../shared/runItems';
import { assetSchema } from '../../shared/schema/asset';
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
import { customFieldDefinitions, customFieldsProperty, readCustomFields } from '../customFields';

const requiredFields = requiredFieldProperties(assetSchema);
const [externalIdField] = mergeFormProperties(assetSchema);

const properties: INodeProperties[] = [
	...upsertModeProperties('asset'),
	inputModeProperty('asset', true),
	columnsProperty,
	...showWhen({ inputMode: ['fields'], mode: ['replace'] }, [
		...requiredFields,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: optionalFieldProperties(assetSchema),
		},
	]),
	...showWhen({ inputMode: ['fields'], mode: ['merge'] }, mergeFormProperties(assetSchema)),
	...showWhen({ inputMode: ['fields'] }, [customFieldsProperty]),
	optionsProperty({
		displayName: 'Ignore Unknown Fields',
		name: 'ignoreUnknownFields',
		type: 'boolean',
		default: false,
		description:
			'Whether to leave out fields of the input item that assets do not have, instead of failing the item',
		displayOptions: { show: { '/inputMode': ['json'] } },
	}),
];

export const description = showFor(['upsert'], properties);

/** Several items are written at once; items with the same External ID take turns (upsertBatch). */
export const concurrency = WRITES_AT_ONCE;
export const writes = true;

export async function prepare(
	this: IExecuteFunctions,
	i: number,
	cache: ExecutionCache,
): Promise<UpsertItem> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const mode = readUpsertMode(this, i);
	const mapped =
		this.getNodeParameter('inputMode', i) === 'map'
			? readColumns(
					this.getNodeParameter('columns', i),
					this.getInputData()[i].json,
					assetSchema.fields,
					await customFieldDefinitions(this, cache, i),
					this.getTimezone(),
				)
			: undefined;
	const { record, unknownFields } = readInputRecord.call(this, i, assetSchema, () => {
		if (mapped) return mapped;
		const fields =
			mode === 'merge'
				? readFormFields.call(this, i, assetSchema, [externalIdField], 'fieldsToSet')
				: readFormFields.call(this, i, assetSchema, requiredFields);
		const custom = readCustomFields(
			this.getNodeParameter('customFieldsUi', i, {}),
			this.getTimezone(),
		);
		if (custom) fields.customFieldValues = custom;
		return fields;
	});
	const usesCustomFields =
		record.customFieldValues !== undefined || record.customFields !== undefined;
	const validation = {
		unknownFields,
		customFieldDefinitions: usesCustomFields
			? await customFieldDefinitions(this, cache, i)
			: undefined,
	};
	// Merge checks the fields given as a change; a record that turns out to be new is checked
	// whole once the lookup has said so
	const issues = validateRecord(assetSchema, record, {
		...validation,
		mode: mode === 'merge' ? 'patch' : 'replace',
	});
	if (mode === 'merge' && !record.id && !record.externalId) {
		issues.unshift({
			path: 'externalId',
			label: 'External ID',
			message: 'is required: it finds the asset to merge into',
		});
	}
	if (issues.length) throw new InvalidItemError('asset', issues);
	return { body: record, retry: readRetryPolicy(options), mode, validation };
}

export const batch = upsertBatch(assetSchema, ASSETS_PATH, 'assets', true);

export async function execute(
	this: IExecuteFunctions,
	item: UpsertItem,
	i: number,
): Promise<IDataObject[]> {
	const { body, retry, mode } = item;
	const write = async (existing: IDataObject | undefined) => {
		// Merge writes to the asset an item names by its service ID, else to the one it found
		const named = mode === 'merge' && typeof body.id === 'string' ? body.id : undefined;
		const target = named ?? existing?.id;
		if (typeof target === 'string') {
			// fields left out stay as they are: only the given ones are sent
			const changes = { ...body };
			delete changes.id;
			return await apiRequest.call(this, 'PATCH', `${ASSETS_PATH}/${target}`, {
				body: changes,
				operation: `update the asset "${String(body.externalId ?? target)}"`,
				answer: 'record',
				itemIndex: i,
				retry,
			});
		}
		return await apiRequest.call(this, 'PUT', ASSETS_PATH, {
			body,
			operation: `create or update the asset "${String(body.externalId)}"`,
			answer: 'record',
			itemIndex: i,
			retry,
		});
	};
	return [await writeInTurn(this, item, write)];
}
