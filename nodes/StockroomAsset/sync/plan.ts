import type { IDataObject } from 'n8n-workflow';
import { normalizeValue } from '../../shared/records';
import { InvalidItemError } from '../../shared/runItems';
import { assetSchema, type CustomFieldDefinition } from '../../shared/schema/asset';
import { isPlainObject } from '../../shared/schema/values';
import { validateRecord, type FieldIssue } from '../../shared/schema/validate';

export const SYNC_KEYS = ['externalId', 'serialNumber', 'assetTag'] as const;
export type SyncKey = (typeof SYNC_KEYS)[number];
export type MissingRecords = 'keep' | 'setStatus' | 'delete';

/** What the source owns: the fields compared and written, nothing else. */
export interface Ownership {
	key: SyncKey;
	fields: readonly string[];
	/** Lookup keys of the custom fields owned (values in `customFieldValues`, wrapped). */
	customFields: readonly string[];
	customFieldDefinitions?: readonly CustomFieldDefinition[];
	timezone: string;
}

/** One source row as read: its key and its owned values (null: no value), or why it is bad. */
export interface SourceRow {
	item: number;
	key?: string;
	values?: IDataObject;
	error?: Error;
}

export interface Change {
	before: unknown;
	after: unknown;
}

export type PlanEntry =
	| {
			action: 'created';
			item: number;
			key: string;
			body: IDataObject;
			changes: Record<string, Change>;
	  }
	| {
			action: 'updated';
			item: number;
			key: string;
			record: IDataObject;
			patch: IDataObject;
			changes: Record<string, Change>;
	  }
	| { action: 'unchanged'; item: number; key: string; record: IDataObject }
	| { action: 'missing'; key?: string; record: IDataObject; reason?: string }
	| {
			action: 'retired';
			key?: string;
			record: IDataObject;
			patch: IDataObject;
			changes: Record<string, Change>;
	  }
	| { action: 'deleted'; key?: string; record: IDataObject }
	/** `item` is absent for a record the source does not have (its write failed). */
	| { action: 'failed'; item?: number; key?: string; record?: IDataObject; error: Error };

const label = (name: string) => assetSchema.fields[name]?.displayName ?? name;
const isEmpty = (value: unknown) =>
	value === undefined ||
	value === null ||
	value === '' ||
	(Array.isArray(value) && value.length === 0);

/** Values compared as the service stores them: key order aside, JSON-equal. */
function sameValue(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
	const canonical = (value: unknown): unknown =>
		Array.isArray(value)
			? value.map(canonical)
			: isPlainObject(value)
				? Object.fromEntries(
						Object.keys(value)
							.sort()
							.map((key) => [key, canonical(value[key])]),
					)
				: value;
	return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** A record's value of an owned field, normalized as a source value is (null: none). */
function valueOf(record: IDataObject, name: string, own: Ownership): unknown {
	const value = normalizeValue(assetSchema.fields[name], record[name], own.timezone);
	return isEmpty(value) ? null : value;
}

function customValueOf(record: IDataObject, key: string): unknown {
	const values = isPlainObject(record.customFieldValues) ? record.customFieldValues : {};
	const found = Object.keys(values).find((name) => name.toLowerCase() === key.toLowerCase());
	return found === undefined || isEmpty(values[found]) ? null : values[found];
}

/** Reads one input item as a source row: key and owned values, checked against the schema. */
export function readRow(json: IDataObject, item: number, own: Ownership): SourceRow {
	const rawKey = json[own.key];
	const key = typeof rawKey === 'number' ? String(rawKey) : rawKey;
	if (typeof key !== 'string' || !key.trim()) {
		const issue = {
			path: own.key,
			label: label(own.key),
			message: `is empty: the row cannot be matched to an asset (got ${JSON.stringify(rawKey ?? null)})`,
		};
		return { item, error: new InvalidItemError('source row', [issue]) };
	}
	const values: IDataObject = { [own.key]: key };
	for (const name of own.fields) {
		if (name === own.key) continue;
		const value = normalizeValue(assetSchema.fields[name], json[name], own.timezone);
		values[name] = isEmpty(value) ? null : (value as IDataObject[string]);
	}
	if (own.customFields.length) {
		const custom: IDataObject = {};
		for (const name of own.customFields) custom[name] = customValueOf(json, name) as IDataObject;
		values.customFieldValues = custom;
	}
	const issues: FieldIssue[] = validateRecord(assetSchema, values, {
		mode: 'patch',
		customFieldDefinitions: own.customFieldDefinitions,
	});
	for (const name of own.fields) {
		if (assetSchema.fields[name]?.required && values[name] === null && name !== own.key)
			issues.push({
				path: name,
				label: label(name),
				message: 'is required: the source has no value',
			});
	}
	return issues.length
		? { item, key, error: new InvalidItemError('source row', issues) }
		: { item, key, values };
}

/** The owned fields that differ between the source row and the stored record. */
function differences(row: IDataObject, record: IDataObject, own: Ownership) {
	const changes: Record<string, Change> = {};
	const patch: IDataObject = {};
	for (const name of own.fields) {
		if (name === own.key) continue;
		const before = valueOf(record, name, own);
		if (sameValue(before, row[name])) continue;
		changes[name] = { before, after: row[name] };
		patch[name] = row[name];
	}
	const custom = (row.customFieldValues ?? {}) as IDataObject;
	for (const name of own.customFields) {
		const before = customValueOf(record, name);
		if (sameValue(before, custom[name])) continue;
		changes[`customFieldValues.${name}`] = { before, after: custom[name] };
		patch.customFieldValues = { ...(patch.customFieldValues as IDataObject), [name]: custom[name] };
	}
	return { changes, patch };
}

/** The asset a row creates: its owned values, and the External ID any asset needs. */
function creation(row: IDataObject, json: IDataObject, own: Ownership): IDataObject {
	const body: IDataObject = {};
	for (const [name, value] of Object.entries(row)) if (value !== null) body[name] = value;
	if (isPlainObject(body.customFieldValues)) {
		const custom = Object.entries(body.customFieldValues).filter(([, value]) => value !== null);
		if (custom.length) body.customFieldValues = Object.fromEntries(custom) as IDataObject;
		else delete body.customFieldValues;
	}
	if (own.key !== 'externalId' && body.externalId === undefined && !isEmpty(json.externalId))
		body.externalId = String(json.externalId);
	return body;
}

const itemList = (items: Array<string | number>) =>
	items.length === 2 ? `${items[0]} and ${items[1]}` : items.join(', ');

/**
 * The plan: what each source row and each record in scope becomes. `scope` is the complete walk
 * of the scope; rows that failed keep their record from being missing (never retired or deleted
 * because its row was bad), and a row with no key at all holds every removal back (which asset
 * it stands for is unknown).
 */
export function planSync(
	rows: SourceRow[],
	inputs: IDataObject[],
	scope: IDataObject[],
	own: Ownership,
	missing: { action: MissingRecords; status: string },
): PlanEntry[] {
	const plan: PlanEntry[] = [];
	const keyName = `${label(own.key)} (${own.key})`;
	const stored = new Map<string, IDataObject[]>();
	for (const record of scope) {
		const value = record[own.key];
		if (typeof value === 'string' && value)
			stored.set(value, [...(stored.get(value) ?? []), record]);
	}
	const itemsByKey = new Map<string, number[]>();
	for (const row of rows) {
		if (row.key !== undefined)
			itemsByKey.set(row.key, [...(itemsByKey.get(row.key) ?? []), row.item]);
	}
	for (const row of rows) {
		const fail = (message: string) =>
			plan.push({ action: 'failed', item: row.item, key: row.key, error: new Error(message) });
		if (row.error || row.key === undefined || !row.values) {
			plan.push({ action: 'failed', item: row.item, key: row.key, error: row.error! });
			continue;
		}
		const twins = itemsByKey.get(row.key)!;
		if (twins.length > 1) {
			fail(
				`${keyName} "${row.key}" is in items ${itemList(twins)} of the input: each key may appear once`,
			);
			continue;
		}
		const matches = stored.get(row.key) ?? [];
		if (matches.length > 1) {
			const ids = matches.map((record) => String(record.id));
			fail(
				`${keyName} "${row.key}" belongs to ${matches.length} assets in scope (ids ${itemList(ids)}): each key may belong to one`,
			);
			continue;
		}
		const [record] = matches;
		if (!record) {
			const body = creation(row.values, inputs[row.item], own);
			const issues = validateRecord(assetSchema, body, {
				mode: 'replace',
				customFieldDefinitions: own.customFieldDefinitions,
			});
			if (issues.length) {
				const noun = `new asset (none in scope has ${keyName} "${row.key}")`;
				plan.push({
					action: 'failed',
					item: row.item,
					key: row.key,
					error: new InvalidItemError(noun, issues),
				});
				continue;
			}
			const changes = Object.fromEntries(
				Object.entries(body).map(([name, after]) => [name, { before: null, after }]),
			);
			plan.push({ action: 'created', item: row.item, key: row.key, body, changes });
			continue;
		}
		const { changes, patch } = differences(row.values, record, own);
		if (Object.keys(patch).length)
			plan.push({ action: 'updated', item: row.item, key: row.key, record, patch, changes });
		else plan.push({ action: 'unchanged', item: row.item, key: row.key, record });
	}

	const unkeyed = rows.filter((row) => row.key === undefined).length;
	const heldBack = unkeyed
		? `kept: ${unkeyed} source row${unkeyed > 1 ? 's have' : ' has'} no ${label(own.key)}, so which assets the source holds is not known`
		: undefined;
	for (const record of scope) {
		const value = record[own.key];
		const key = typeof value === 'string' && value ? value : undefined;
		if (key !== undefined && itemsByKey.has(key)) continue;
		if (missing.action === 'keep' || heldBack) {
			plan.push({ action: 'missing', key, record, ...(heldBack ? { reason: heldBack } : {}) });
		} else if (missing.action === 'delete') {
			plan.push({ action: 'deleted', key, record });
		} else if (record.status === missing.status) {
			plan.push({ action: 'missing', key, record });
		} else {
			const changes = { status: { before: record.status ?? null, after: missing.status } };
			plan.push({ action: 'retired', key, record, patch: { status: missing.status }, changes });
		}
	}
	return plan;
}
