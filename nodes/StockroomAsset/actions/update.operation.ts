import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';
import { optionsProperty, readRetryPolicy } from '../../shared/descriptions/common';
import { optionalFieldProperties, writableScalars } from '../../shared/descriptions/recordFields';
import { showFor } from '../../shared/descriptions/showFor';
import { normalizeRecord } from '../../shared/records';
import { ASSETS_PATH } from '../../shared/resources';
import { InvalidItemError, type ExecutionCache } from '../../shared/runItems';
import { assetSchema } from '../../shared/schema/asset';
import { validateRecord } from '../../shared/schema/validate';
import { apiRequest, type RetryPolicy } from '../../shared/transport';
import { customFieldDefinitions, customFieldsProperty, readCustomFields } from '../customFields';
import { assetLocator, resolveAssetId } from '../locator';

const clearable = writableScalars(assetSchema.fields).filter(([, field]) => !field.required);

const properties: INodeProperties[] = [
	assetLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Fields to change; fields not listed keep their values',
		options: optionalFieldProperties(assetSchema, true),
	},
	{
		...customFieldsProperty,
		description: 'Custom fields to set; other custom fields keep their values',
	},
	{
		displayName: 'Fields to Clear',
		name: 'fieldsToClear',
		type: 'multiOptions',
		options: clearable
			.map(([name, field]) => ({ name: field.displayName, value: name }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: [],
		description: 'Fields to empty on the asset',
	},
	optionsProperty(),
];

export const description = showFor(['update'], properties);
export const writes = true;

interface Prepared {
	id: string;
	body: IDataObject;
	retry: RetryPolicy;
}

export async function prepare(
	this: IExecuteFunctions,
	i: number,
	cache: ExecutionCache,
): Promise<Prepared> {
	const retry = readRetryPolicy(this.getNodeParameter('options', i, {}) as IDataObject);
	const body = normalizeRecord(
		assetSchema.fields,
		{ ...(this.getNodeParameter('updateFields', i, {}) as IDataObject) },
		this.getTimezone(),
	);
	const custom = readCustomFields(
		this.getNodeParameter('customFieldsUi', i, {}),
		this.getTimezone(),
	);
	if (custom) body.customFieldValues = custom;
	for (const name of this.getNodeParameter('fieldsToClear', i, []) as string[]) {
		if (name in body) {
			throw new InvalidItemError('update', [
				{ path: name, message: 'is both set in Update Fields and listed in Fields to Clear' },
			]);
		}
		body[name] = null;
	}
	if (!Object.keys(body).length) {
		throw new InvalidItemError('update', [
			{
				path: 'Update Fields',
				message:
					'nothing to change: add a field to Update Fields, Custom Fields or Fields to Clear',
			},
		]);
	}
	const issues = validateRecord(assetSchema, body, {
		mode: 'patch',
		customFieldDefinitions: custom ? await customFieldDefinitions(this, cache, i) : undefined,
	});
	if (issues.length) throw new InvalidItemError('asset update', issues);
	const { id, label } = await resolveAssetId.call(this, i, retry);
	if (!id) throw new NodeOperationError(this.getNode(), `No ${label} exists`, { itemIndex: i });
	return { id, body, retry };
}

export async function execute(
	this: IExecuteFunctions,
	{ id, body, retry }: Prepared,
	i: number,
): Promise<IDataObject[]> {
	return [
		await apiRequest.call(this, 'PATCH', `${ASSETS_PATH}/${id}`, {
			body,
			operation: `update asset ${id}`,
			answer: 'record',
			itemIndex: i,
			retry,
		}),
	];
}
