import {
	boolean,
	currency,
	customFields,
	date,
	dateTime,
	email,
	number,
	object,
	oneOf,
	personRef,
	recordMetadata,
	text,
	type ResourceSchema,
} from './fields';

export const ASSET_STATUSES = [
	'New',
	'ReadyToDeploy',
	'Deployed',
	'OutForRepair',
	'Retired',
] as const;

/** Operating systems the service is known to report; other values are accepted. */
export const ASSET_PLATFORMS = ['Android', 'ChromeOS', 'iOS', 'Linux', 'Mac', 'Unknown', 'Windows'];

export const assetSchema: ResourceSchema = {
	noun: 'asset',
	filterExample: 'status eq "Deployed" and not (lastSyncDtm pr)',
	simpleFields: [
		'id',
		'externalId',
		'deviceName',
		'status',
		'assetType',
		'hardwareVendor',
		'modelName',
		'serialNumber',
		'assetTag',
		'assignedToEmail',
		'platform',
		'osVersion',
		'lastSyncDtm',
		'locationName',
		'lastModifiedDtm',
	],
	fields: {
		...recordMetadata,
		externalId: text('External ID', {
			required: true,
			description:
				'Unique identifier of the asset, e.g. its ID in a source system. Create or Update matches on it.',
		}),
		deviceName: text('Device Name', { required: true, description: 'Descriptive name' }),
		status: oneOf('Status', ASSET_STATUSES, { required: true }),
		hardwareVendor: text('Hardware Vendor', { required: true, placeholder: 'e.g. Dell' }),
		// "not stated" in the API document: the service's own client never sends it
		assetType: text('Asset Type', { prominent: true, placeholder: 'e.g. Laptop' }),
		modelName: text('Model Name', { placeholder: 'e.g. Latitude 7440' }),
		locationName: text('Location Name', { placeholder: 'e.g. Berlin office' }),
		serialNumber: text('Serial Number'),
		assetTag: text('Asset Tag'),
		purchasedDate: date('Purchased Date'),
		disposalDate: date('Disposal Date'),
		warrantyExpirationDate: date('Warranty Expiration Date'),
		lifespanExpirationDate: date('Lifespan Expiration Date', {
			description: 'Date the asset is considered end of life',
		}),
		notes: text('Notes', { multiline: true }),
		assignedToEmail: email('Assigned To Email', {
			description: 'Email address of the person the asset is assigned to',
		}),
		netPrice: number('Net Price', { min: 0 }),
		netPriceCurrency: currency('Net Price Currency'),
		enrolledDtm: dateTime('Enrolled At', {
			description: 'When the asset was enrolled in a device-management platform',
		}),
		lastSyncDtm: dateTime('Last Synced At', {
			description: 'When the asset last synchronised from a device-management platform',
		}),
		platform: text('Platform', {
			suggestions: ASSET_PLATFORMS,
			description: 'Operating system name',
		}),
		osVersion: text('OS Version'),
		isEncrypted: boolean('Is Encrypted', { description: 'Whether the device is encrypted' }),
		statusType: text('Status Type', { readOnly: true }),
		location: object('Location', { id: text('ID'), name: text('Name') }, { readOnly: true }),
		assignedTo: personRef('Assigned To'),
		customFieldValues: customFields('Custom Field Values', 'wrapped'),
		customFields: customFields('Custom Fields', 'plain'),
	},
};

/**
 * The one table of custom field types: each type of a definition (`GET
 * /api/assets/v1/customfields`), the attribute its wrapped value carries, and how the node's
 * Custom Fields form names it (`form`, the saved parameter value, and `label`).
 */
export const CUSTOM_FIELD_KINDS = {
	Text: { attribute: 'textValue', form: 'text', label: 'Text' },
	Link: { attribute: 'linkValue', form: 'link', label: 'Link' },
	Currency: { attribute: 'currencyValue', form: 'money', label: 'Money Amount' },
	Date: { attribute: 'textValue', form: 'date', label: 'Date' },
	Number: { attribute: 'numberValue', form: 'number', label: 'Number' },
	Option: { attribute: 'optionValue', form: 'options', label: 'Options' },
} as const;
export type CustomFieldType = keyof typeof CUSTOM_FIELD_KINDS;
/** A type's value in the Custom Fields form ('text', 'money', ...). */
export type CustomFieldForm = (typeof CUSTOM_FIELD_KINDS)[CustomFieldType]['form'];

export interface CustomFieldDefinition {
	id: string;
	name: string;
	lookupKey: string;
	type: CustomFieldType;
	options?: Array<{ id: string; label: string }>;
}

/** Shapes of the wrapped custom field value attributes (service-api.md §2.1). */
export const customFieldValueSchema = {
	numberValue: number('Number Value'),
	textValue: text('Text Value'),
	optionValue: { type: 'stringList', displayName: 'Option Value' },
	currencyValue: object('Money Amount', {
		value: number('Amount', { required: true }),
		currency: currency('Currency', { required: true }),
	}),
	linkValue: object('Link', {
		href: { type: 'url', displayName: 'URL', required: true },
		description: text('Description'),
	}),
} as const;
