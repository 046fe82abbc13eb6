/**
 * The vocabulary every resource schema is written in. Each field is declared once; the node UI,
 * item validation, the filter language's attribute table and the sandbox's checks derive from it.
 */

export type FieldType =
	| 'string'
	| 'email'
	| 'url'
	| 'currency'
	| 'number'
	| 'boolean'
	| 'date'
	| 'dateTime'
	| 'enum'
	| 'object'
	| 'list'
	| 'stringList'
	| 'customFields';

interface FieldBase {
	displayName: string;
	description?: string;
	/** Must be present on a full write (PUT). */
	required?: boolean;
	/**
	 * Optional, yet a form shows it as its own parameter beside the required ones (a field most
	 * records have, and one a form always offered).
	 */
	prominent?: boolean;
	/** Assigned by the service; never sent, ignored on write. */
	readOnly?: boolean;
	/** Offered in the filter builder (read-only fields are filterable too). Defaults to true. */
	filterable?: boolean;
	placeholder?: string;
}

export interface TextField extends FieldBase {
	type: 'string' | 'email' | 'url' | 'currency';
	/** Values the service is known to use; offered in the UI, not enforced. */
	suggestions?: readonly string[];
	multiline?: boolean;
}

export interface NumberField extends FieldBase {
	type: 'number';
	min?: number;
	integer?: boolean;
}

export interface BooleanField extends FieldBase {
	type: 'boolean';
	/** The value the service assumes when the field is absent. */
	absentMeans?: boolean;
}

export interface DateField extends FieldBase {
	type: 'date' | 'dateTime';
}

export interface EnumField extends FieldBase {
	type: 'enum';
	values: readonly string[];
}

export interface ObjectField extends FieldBase {
	type: 'object';
	fields: Fields;
}

export interface ListField extends FieldBase {
	type: 'list';
	/** Singular label of one element, e.g. "Line Item". */
	itemName: string;
	fields: Fields;
}

export interface StringListField extends FieldBase {
	type: 'stringList';
}

export interface CustomFieldsField extends FieldBase {
	type: 'customFields';
	/** `customFieldValues` holds typed wrapper objects; `customFields` holds plain values. */
	form: 'wrapped' | 'plain';
}

export type Field =
	| TextField
	| NumberField
	| BooleanField
	| DateField
	| EnumField
	| ObjectField
	| ListField
	| StringListField
	| CustomFieldsField;

export type Fields = Readonly<Record<string, Field>>;

/** Fields under a noun: what a filter is checked against (a resource, or its line items). */
export interface FieldSet {
	/** Singular noun used in messages, e.g. "asset". */
	noun: string;
	fields: Fields;
	/**
	 * The URI of the schema whose attributes `fields` are (SCIM's core User schema): an attribute
	 * qualified with it (RFC 7644 §3.10) is the attribute itself. Fields keyed by another schema's
	 * URI hold that extension's attributes.
	 */
	coreSchema?: string;
	/**
	 * Attributes the fields do not list are the server's to judge: a filter naming one is sent
	 * with a notice instead of being refused (a SCIM server may define attributes of its own).
	 */
	openAttributes?: boolean;
}

export interface ResourceSchema extends FieldSet {
	/** The fields Get and Get Many keep with Simplify: what a person or an agent needs. */
	simpleFields?: readonly string[];
	/** A filter expression over this resource, for the editor's hints (checked by a test). */
	filterExample: string;
}

type Options<F extends FieldBase> = Partial<Omit<F, 'type' | 'displayName'>>;

export const text = (displayName: string, options: Options<TextField> = {}): TextField => ({
	type: 'string',
	displayName,
	...options,
});
export const email = (displayName: string, options: Options<TextField> = {}): TextField => ({
	type: 'email',
	displayName,
	placeholder: 'name@email.com',
	...options,
});
export const url = (displayName: string, options: Options<TextField> = {}): TextField => ({
	type: 'url',
	displayName,
	placeholder: 'https://',
	...options,
});
export const currency = (displayName: string, options: Options<TextField> = {}): TextField => ({
	type: 'currency',
	displayName,
	...options,
});
export const number = (displayName: string, options: Options<NumberField> = {}): NumberField => ({
	type: 'number',
	displayName,
	...options,
});
export const boolean = (
	displayName: string,
	options: Options<BooleanField> = {},
): BooleanField => ({
	type: 'boolean',
	displayName,
	...options,
});
export const date = (displayName: string, options: Options<DateField> = {}): DateField => ({
	type: 'date',
	displayName,
	...options,
});
export const dateTime = (displayName: string, options: Options<DateField> = {}): DateField => ({
	type: 'dateTime',
	displayName,
	...options,
});
export const oneOf = (
	displayName: string,
	values: readonly string[],
	options: Options<EnumField> = {},
): EnumField => ({ type: 'enum', displayName, values, ...options });
export const object = (
	displayName: string,
	fields: Fields,
	options: Options<ObjectField> = {},
): ObjectField => ({ type: 'object', displayName, fields, ...options });
export const list = (
	displayName: string,
	itemName: string,
	fields: Fields,
	options: Options<ListField> = {},
): ListField => ({ type: 'list', displayName, itemName, fields, ...options });
export const stringList = (
	displayName: string,
	options: Options<StringListField> = {},
): StringListField => ({ type: 'stringList', displayName, ...options });
export const customFields = (
	displayName: string,
	form: CustomFieldsField['form'],
	options: Options<CustomFieldsField> = {},
): CustomFieldsField => ({ type: 'customFields', displayName, form, ...options });

/** The `{userId, name, email}` shape the service uses for people on a record. */
export const personRef = (displayName: string): ObjectField =>
	object(
		displayName,
		{
			userId: text('User ID'),
			name: text('Name'),
			email: email('Email'),
		},
		{ readOnly: true },
	);

/** Read-only bookkeeping fields every asset and contract carries. */
export const recordMetadata: Fields = {
	id: text('ID', { readOnly: true, description: 'Server-assigned identifier (24 hex characters)' }),
	createdDtm: dateTime('Created At', { readOnly: true }),
	lastModifiedDtm: dateTime('Last Modified At', { readOnly: true }),
	createdBy: personRef('Created By'),
	lastModifiedBy: personRef('Last Modified By'),
};

/** How a form shows an enum value: its words ("ReadyToDeploy" is "Ready To Deploy"). */
export const enumLabel = (value: string): string => value.replace(/([a-z])([A-Z])/g, '$1 $2');
