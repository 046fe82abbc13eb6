import type { IDataObject, INode } from 'n8n-workflow';
import { normalizeValue } from '../../shared/records';
import { InvalidItemError } from '../../shared/runItems';
import { CUSTOM_COLUMN_PREFIX } from '../../shared/columns';
import { assetSchema, type CustomFieldDefinition } from '../../shared/schema/asset';
import { canonicalCustomValue, entryKey, wrapCustomValue } from '../../shared/schema/customValues';
import { date } from '../../shared/schema/fields';
import { validateRecord, type FieldIssue } from '../../shared/schema/validate';
import { hasValue, isPlainObject } from '../../shared/schema/values';
import type { AbsentColumn } from '../../shared/sync/columns';
import type { RowIdentity } from '../../shared/sync/identity';
import {
	fromExportText,
	PLAIN_TEXT,
	refuseSwappedDate,
	unreadHint,
	type ExportFormats,
} from '../../shared/sync/exportText';
import { cleanKey, type PlaceholderTest } from '../../shared/sync/keys';

export const SYNC_KEYS = ['externalId', 'serialNumber', 'assetTag'] as const;
export type SyncKey = (typeof SYNC_KEYS)[number];

/** What the source owns and how its columns are read. */
export interface Ownership {
	key: SyncKey;
	/** Fields compared and written (the key and the External ID, which identify, are not among them). */
	fields: readonly string[];
	/** Fields used for new assets only, never compared or written on existing ones. */
	createOnly: readonly string[];
	/** Custom fields compared and written, resolved to the service's definitions. */
	customFields: readonly CustomFieldDefinition[];
	/** A field an item does not carry: left as it is, or cleared. */
	absent: 'keep' | 'clear';
	isPlaceholder: PlaceholderTest;
	timezone: string;
	/**
	 * How the export writes dates, date-times and numbers (Date Format, Timezone of Dates Without
	 * One); when not given, plain numbers and YYYY-MM-DD dates, date-times in `timezone`.
	 */
	formats?: ExportFormats;
	/** The node, which refuses a date column written in the other day/month order. */
	node?: INode;
}

/**
 * One input item as the columns give it: each field the sync reads by its API name (absent: not
 * carried), custom fields by lookup key. From the item's own keys, or from the mapped columns.
 */
export interface SourceColumns {
	fields: IDataObject;
	custom: IDataObject;
}

/** One source row as read: its identity, its owned values and its values for a new asset. */
export interface SourceRow extends RowIdentity {
	/** Owned fields (null: cleared); a field not carried is left out unless absent means clear. */
	values: IDataObject;
	/** Owned custom fields by lookup key, canonical wrapped values (null: cleared). */
	custom: IDataObject;
	/** Fields set only when creating, those with a value. */
	createValues: IDataObject;
	/** What is wrong with the row's values, if anything. */
	error?: InvalidItemError;
}

export const fieldLabel = (name: string) => assetSchema.fields[name]?.displayName ?? name;
export const fieldName = (name: string) => `${fieldLabel(name)} (${name})`;

const readByOwnership = new WeakMap<Ownership, readonly string[]>();

/** The fields an item's columns give: the key, the External ID, owned and create-only fields. */
function fieldsRead(own: Ownership): readonly string[] {
	let names = readByOwnership.get(own);
	if (!names) {
		names = [...new Set([own.key, 'externalId', ...own.fields, ...own.createOnly])];
		readByOwnership.set(own, names);
	}
	return names;
}

/** The source columns of an item read by field names: its own keys, custom fields in its maps. */
export function columnsByName(json: IDataObject, own: Ownership): SourceColumns {
	const fields: IDataObject = {};
	for (const name of fieldsRead(own)) if (json[name] !== undefined) fields[name] = json[name];
	const custom: IDataObject = {};
	const wrapped = isPlainObject(json.customFieldValues) ? json.customFieldValues : {};
	const plain = isPlainObject(json.customFields) ? json.customFields : {};
	for (const definition of own.customFields) {
		const wrappedKey = entryKey(wrapped, definition);
		const plainKey = entryKey(plain, definition);
		if (wrappedKey !== undefined) custom[definition.lookupKey] = wrapped[wrappedKey] as IDataObject;
		else if (plainKey !== undefined)
			custom[definition.lookupKey] = hasValue(plain[plainKey])
				? (wrapCustomValue(plain[plainKey], definition, own.timezone) as IDataObject)
				: null;
	}
	return { fields, custom };
}

/** Columns no item carries: the key, owned and create-only fields, owned custom fields. */
export function absentColumns(
	columns: readonly SourceColumns[],
	own: Ownership,
	where: (field: string) => { soughtAs: string[]; where: string },
): AbsentColumn[] {
	const carried = new Set<string>();
	for (const { fields, custom } of columns) {
		for (const name of Object.keys(fields)) carried.add(name);
		for (const key of Object.keys(custom)) carried.add(`${CUSTOM_COLUMN_PREFIX}${key}`);
	}
	const read = [
		...new Set([own.key, ...own.fields, ...own.createOnly]),
		...own.customFields.map((definition) => `${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}`),
	];
	return read
		.filter((field) => !carried.has(field))
		.map((field) => ({ name: columnName(field, own), ...where(field) }));
}

/** The owned custom field whose column (`customFieldValues.<lookup key>`) this is, if any. */
export const ownedCustomField = (
	own: Pick<Ownership, 'customFields'>,
	field: string,
): CustomFieldDefinition | undefined =>
	own.customFields.find((definition) => `${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}` === field);

/** A field the columns give, as messages name it: "Model Name (modelName)", a custom field's. */
export function columnName(field: string, own: Ownership): string {
	const definition = ownedCustomField(own, field);
	return definition
		? `${definition.name} (custom field ${definition.lookupKey})`
		: fieldName(field);
}

const plainByOwnership = new WeakMap<Ownership, ExportFormats>();

/** The export's formats; plain text in the workflow's zone when the ownership gives none. */
function formatsOf(own: Ownership): ExportFormats {
	if (own.formats) return own.formats;
	let plain = plainByOwnership.get(own);
	if (!plain) plainByOwnership.set(own, (plain = { ...PLAIN_TEXT, zone: own.timezone }));
	return plain;
}

/**
 * A source value as compared and written: read in the export's formats (numbers and yes/no
 * words as text, dates and date-times as MDM exports write them), normalized like any input; null
 * when it has none. A date in the other day/month order refuses the run (its column).
 */
function sourceValue(item: number, name: string, value: unknown, own: Ownership): unknown {
	const field = assetSchema.fields[name];
	const formats = formatsOf(own);
	if (own.node) refuseSwappedDate(own.node, () => fieldName(name), item, field, value, formats);
	const normalized = normalizeValue(field, fromExportText(field, value, formats), own.timezone);
	return hasValue(normalized) ? normalized : null;
}

/** A Date custom field's value, read as exports write dates, as a date field of the asset is. */
const CUSTOM_DATE = date('Date');

/** The export text of a Date custom field's value, if it is one ({textValue}). */
const customDateText = (definition: CustomFieldDefinition, value: unknown) =>
	definition.type === 'Date' && isPlainObject(value) && typeof value.textValue === 'string'
		? value.textValue
		: undefined;

/**
 * A custom field's source value as compared and written: a Date field's text read in the export's
 * Date Format (03/15/2027, 2027-03-15 08:14:00), as the asset's own date columns are; its column
 * in the other day/month order refuses the run. Other types as they are given.
 */
function customSourceValue(
	item: number,
	definition: CustomFieldDefinition,
	value: unknown,
	own: Ownership,
): unknown {
	const text = customDateText(definition, value);
	if (text === undefined) return canonicalCustomValue(value, definition, own.timezone);
	const formats = formatsOf(own);
	const column = () => columnName(`${CUSTOM_COLUMN_PREFIX}${definition.lookupKey}`, own);
	if (own.node) refuseSwappedDate(own.node, column, item, CUSTOM_DATE, text, formats);
	const read = fromExportText(CUSTOM_DATE, text, formats);
	return canonicalCustomValue({ textValue: read }, definition, own.timezone);
}

/** Says, after an issue with a value the export wrote, what was not read and what to set. */
function hintUnread(issues: FieldIssue[], columns: SourceColumns, own: Ownership): void {
	for (const issue of issues) {
		const field = assetSchema.fields[issue.path];
		if (field) issue.message += unreadHint(field, columns.fields[issue.path], formatsOf(own));
		const custom = ownedCustomField(own, issue.path);
		const text = custom && customDateText(custom, columns.custom[custom.lookupKey]);
		if (text !== undefined) issue.message += unreadHint(CUSTOM_DATE, text, formatsOf(own));
	}
}

/** Reads one item's columns as a source row: identity, owned values, checked against the schema. */
export function readRow(item: number, columns: SourceColumns, own: Ownership): SourceRow {
	const { fields, custom } = columns;
	const key = cleanKey(fields[own.key]);
	const placeholder = key !== undefined && own.isPlaceholder(key) ? key : undefined;
	const externalId = own.key === 'externalId' ? undefined : cleanKey(fields.externalId);
	const row: SourceRow = {
		item,
		key: placeholder === undefined ? key : undefined,
		placeholder,
		externalId,
		values: {},
		custom: {},
		createValues: {},
	};
	for (const name of own.fields) {
		if (fields[name] === undefined && own.absent === 'keep') continue;
		row.values[name] = sourceValue(item, name, fields[name], own) as IDataObject[string];
	}
	for (const name of own.createOnly) {
		const value = sourceValue(item, name, fields[name], own);
		if (value !== null) row.createValues[name] = value as IDataObject[string];
	}
	for (const definition of own.customFields) {
		const value = custom[definition.lookupKey];
		if (value === undefined && own.absent === 'keep') continue;
		row.custom[definition.lookupKey] = customSourceValue(
			item,
			definition,
			value,
			own,
		) as IDataObject;
	}
	// one record to check (no copy in the usual case: no create-only and no custom field)
	const checked: IDataObject =
		own.createOnly.length || own.customFields.length
			? { ...row.values, ...row.createValues }
			: row.values;
	if (own.customFields.length) checked.customFieldValues = row.custom;
	// a required field the source empties: "is required and cannot be cleared"
	const issues = validateRecord(assetSchema, checked, {
		mode: 'patch',
		customFieldDefinitions: own.customFields,
	});
	hintUnread(issues, columns, own);
	if (issues.length) row.error = new InvalidItemError('source row', issues);
	return row;
}
