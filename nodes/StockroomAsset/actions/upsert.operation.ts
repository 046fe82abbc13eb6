import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import {
	optionalFieldProperties,
	requiredFieldProperties,
} from '../../shared/descriptions/recordFields';
import { showFor, showWhen } from '../../shared/descriptions/showFor';
import { ASSETS_PATH } from '../../shared/resources';
import { InvalidItemError, type ExecutionCache } from '../../shared/runItems';
import { assetSchema } from '../../shared/schema/asset';
import { validateRecord } from '../../shared/schema/validate';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import { customFieldDefinitions, customFieldsProperty, readCustomFields } from '../customFields';
import { inputModeProperty, readFormFields, readInputRecord } from '../../shared/inputRecord';

const requiredFields = requiredFieldProperties(assetSchema);

const properties: INodeProperties[] = [
	inputModeProperty('asset'),
	...showWhen({ inputMode: ['fields'] }, [
		...requiredFields,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: optionalFieldProperties(assetSchema),
		},
		customFieldsProperty,
	]),
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

interface Prepared {
	body: IDataObject;
	retry: RetryPolicy;
}

/** Writes are independent per item, so several are in flight at once. */
export const concurrency = 8;
export const writes = true;

export async function prepare(
	this: IExecuteFunctions,
	i: number,
	cache: ExecutionCache,
): Promise<Prepared> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const { record, unknownFields } = readInputRecord.call(this, i, assetSchema, () => {
		const fields = readFormFields.call(this, i, assetSchema, requiredFields);
		const custom = readCustomFields(
			this.getNodeParameter('customFieldsUi', i, {}),
			this.getTimezone(),
		);
		if (custom) fields.customFieldValues = custom;
		return fields;
	});
	const usesCustomFields =
		record.customFieldValues !== undefined || record.customFields !== undefined;
	const issues = validateRecord(assetSchema, record, {
		mode: 'replace',
		unknownFields,
		customFieldDefinitions: usesCustomFields
			? await customFieldDefinitions(this, cache, i)
			: undefined,
	});
	if (issues.length) throw new InvalidItemError('asset', issues);
	return { body: record, retry: readRetryPolicy(options) };
}

export async function execute(
	this: IExecuteFunctions,
	{ body, retry }: Prepared,
	i: number,
): Promise<IDataObject[]> {
	return [
		await apiRequest.call(this, 'PUT', ASSETS_PATH, {
			body,
			operation: `create or update the asset "${String(body.externalId)}"`,
			answer: 'record',
			itemIndex: i,
			retry,
		}),
	];
}
