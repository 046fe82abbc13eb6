import type { IDataObject } from 'n8n-workflow';
import { ELEMENT_EXTRA_FIELDS } from './descriptions/recordFields';
import { toServiceDate, toServiceDateTime } from './dates';
import type { Field, Fields } from './schema/fields';
import { isPlainObject } from './schema/values';

/** A value from the UI or an input item in the form the service expects (dates above all). */
export function normalizeValue(
	field: Field | undefined,
	value: unknown,
	timezone: string,
): unknown {
	if (!field || value === null || value === undefined) return value;
	switch (field.type) {
		case 'date':
			return toServiceDate(value, timezone);
		case 'dateTime':
			return toServiceDateTime(value, timezone);
		case 'object':
			return isPlainObject(value)
				? normalizeRecord(field.fields, value as IDataObject, timezone)
				: value;
		case 'list':
			return Array.isArray(value)
				? value.map((element) =>
						isPlainObject(element)
							? normalizeRecord(field.fields, element as IDataObject, timezone)
							: element,
					)
				: value;
		default:
			return value;
	}
}

/** Normalizes every known field of a record; unknown fields are left for validation to report. */
export function normalizeRecord(
	fields: Fields,
	record: IDataObject,
	timezone: string,
): IDataObject {
	const result: IDataObject = {};
	for (const [key, value] of Object.entries(record)) {
		result[key] = normalizeValue(fields[key], value, timezone) as IDataObject[string];
	}
	return result;
}

/** Elements of a repeatable UI group (fixedCollection `values`), empty texts left out. */
export function readListElements(raw: unknown, fields: Fields, timezone: string): IDataObject[] {
	const values =
		isPlainObject(raw) && Array.isArray(raw.values) ? (raw.values as IDataObject[]) : [];
	return values.map((element) => {
		const { [ELEMENT_EXTRA_FIELDS]: extra, ...direct } = element;
		const merged: IDataObject = {
			...direct,
			...(isPlainObject(extra) ? (extra as IDataObject) : {}),
		};
		for (const [key, value] of Object.entries(merged)) {
			if (value === '' && !fields[key]?.required) delete merged[key];
		}
		return normalizeRecord(fields, merged, timezone);
	});
}

const SERVICE_ID = /^[0-9a-f]{24}$/;

/**
 * The record without the fields the service assigns. A service `id` (24 hex) is kept: it selects
 * the record a PUT replaces, so a record read from the service can be written back as it is.
 */
export function withoutReadOnly(fields: Fields, record: IDataObject): IDataObject {
	const result: IDataObject = {};
	for (const [key, value] of Object.entries(record)) {
		const field = fields[key];
		const keep = key === 'id' && typeof value === 'string' && SERVICE_ID.test(value);
		if (field?.readOnly && !keep) continue;
		if (field?.type === 'list' && Array.isArray(value)) {
			result[key] = value.map((element) =>
				isPlainObject(element) ? withoutReadOnly(field.fields, element as IDataObject) : element,
			) as IDataObject[];
		} else {
			result[key] = value;
		}
	}
	return result;
}
