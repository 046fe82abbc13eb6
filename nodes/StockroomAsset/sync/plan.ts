import type { IDataObject } from 'n8n-workflow';
import { normalizeValue } from '../../shared/records';
import { InvalidItemError } from '../../shared/runItems';
import { assetSchema, type CustomFieldDefinition } from '../../shared/schema/asset';
import {
	canonicalCustomValue,
	customCompareForm,
	entryKey,
} from '../../shared/schema/customValues';
import { validateRecord } from '../../shared/schema/validate';
import { hasValue, isPlainObject } from '../../shared/schema/values';
import {
	fingerprint,
	type Change,
	type MissingRecords,
	type PlanEntry,
} from '../../shared/sync/entries';
import { countClears, type GuardedPlan } from '../../shared/sync/guard';
import { recordKey, type Resolution } from '../../shared/sync/identity';
import { fillFromScope, outsideScope, patched, type ScopeRule } from '../../shared/sync/scope';
import { sameValue } from '../../shared/sync/values';
import { fieldLabel, fieldName, ownedCustomField, type Ownership, type SourceRow } from './source';

/** A stored record's value of an owned field, normalized as a source value is (null: none). */
function storedValue(record: IDataObject, name: string, own: Ownership): unknown {
	const value = normalizeValue(assetSchema.fields[name], record[name], own.timezone);
	return hasValue(value) ? value : null;
}

/** A stored record's custom field, in the canonical wrapped form (null: none). */
function storedCustom(record: IDataObject, own: Ownership, index: number): unknown {
	const definition = own.customFields[index];
	const values = isPlainObject(record.customFieldValues) ? record.customFieldValues : {};
	const key = entryKey(values, definition);
	return canonicalCustomValue(key === undefined ? null : values[key], definition, own.timezone);
}

/** The owned fields that differ between the source row and the stored record. */
function differences(row: SourceRow, record: IDataObject, own: Ownership) {
	const changes: Record<string, Change> = {};
	const patch: IDataObject = {};
	for (const [name, after] of Object.entries(row.values)) {
		const before = storedValue(record, name, own);
		if (sameValue(before, after)) continue;
		changes[name] = { before, after };
		patch[name] = after;
	}
	own.customFields.forEach((definition, index) => {
		const after = row.custom[definition.lookupKey];
		if (after === undefined) return;
		const before = storedCustom(record, own, index);
		if (sameValue(customCompareForm(before), customCompareForm(after))) return;
		changes[`customFieldValues.${definition.lookupKey}`] = { before, after };
		patch.customFieldValues = {
			...(patch.customFieldValues as IDataObject),
			[definition.lookupKey]: after as IDataObject,
		};
	});
	return { changes, patch };
}

/** The asset a row creates: its key, External ID, owned and create-only values with a value. */
function creation(row: SourceRow, own: Ownership): IDataObject {
	const body: IDataObject = { [own.key]: row.key! };
	if (row.externalId !== undefined) body.externalId = row.externalId;
	for (const [name, value] of Object.entries({ ...row.values, ...row.createValues }))
		if (value !== null) body[name] = value;
	const custom = Object.entries(row.custom).filter(([, value]) => value !== null);
	if (custom.length) body.customFieldValues = Object.fromEntries(custom) as IDataObject;
	return body;
}

export interface Plan extends GuardedPlan {
	entries: PlanEntry[];
}

/** What happens to records in scope that no row names, and to those that come back. */
export interface MissingHandling {
	action: MissingRecords;
	/** The status Set Status gives. */
	status: string;
	/**
	 * A record a row names again whose status is that status: set back to the status the row
	 * gives a new asset (restore), or left as it is, and said so (leave).
	 */
	returning: 'restore' | 'leave';
}

/** Where the plan's records must land, and how a custom field the scope fixes is written. */
export interface ScopeLanding {
	rule: ScopeRule;
	/** The definitions of the custom fields the scope fixes (a new asset is checked with them). */
	definitions: readonly CustomFieldDefinition[];
	wrapCustom: (name: string, value: unknown) => { key: string; value: IDataObject } | undefined;
}

/**
 * A record back in the source whose status is the one Set Status gave: what its entry does to
 * its status. `restore` adds the status back to the patch; otherwise the entry says it is left.
 */
function returningStatus(
	row: SourceRow,
	record: IDataObject,
	missing: MissingHandling,
	changes: Record<string, Change>,
	patch: IDataObject,
): { restore?: true; returning?: string; reason?: string } {
	if (missing.action !== 'setStatus' || record.status !== missing.status) return {};
	// the status the source gives: owned, or the one a new asset would get
	const given = (row.values.status ?? row.createValues.status) as string | null | undefined;
	if (given === missing.status) return {};
	const left = (why: string) => {
		delete changes.status;
		delete patch.status;
		return {
			returning: missing.status,
			reason: `back in the source; its status stays ${missing.status} (${why})`,
		};
	};
	if (!given)
		return left(
			`the source gives no Status to restore: map Status, or list it under Fields Set Only When Creating`,
		);
	if (missing.returning === 'leave') return left('Returning Records: Leave As It Is');
	changes.status = { before: missing.status, after: given };
	patch.status = given;
	return { restore: true };
}

/**
 * The plan: what each source row and each record in scope becomes, from the rows' resolution
 * (which record each stands for). Missing are the records in scope that no row names; a record
 * whose key is blank or a placeholder cannot be told apart, so it is kept and says why.
 */
export function planSync(
	rows: readonly SourceRow[],
	resolution: Resolution,
	scope: readonly IDataObject[],
	own: Ownership,
	missing: MissingHandling,
	landing: ScopeLanding,
): Plan {
	const entries: PlanEntry[] = [];
	const cleared = new Map<string, number>();
	let restored = 0;
	const label = (field: string) =>
		field.startsWith('customFieldValues.')
			? `${(ownedCustomField(own, field) ?? { name: field }).name} (${field})`
			: fieldName(field);
	for (const row of rows) {
		const target = resolution.targets.get(row.item)!;
		const key = row.key ?? row.placeholder;
		const name = row.values.deviceName ?? row.createValues.deviceName;
		const fail = (error: Error) =>
			entries.push({
				action: 'failed',
				item: row.item,
				key,
				...(typeof name === 'string' ? { name } : {}),
				error,
				row: fingerprint(row),
			});
		if (target.kind === 'refused') {
			fail(new Error(target.message));
			continue;
		}
		if (row.error) {
			fail(row.error);
			continue;
		}
		if (target.kind === 'new') {
			const body = creation(row, own);
			// before validation: a required field the scope fixes (a vendor) is given by it
			fillFromScope(body, landing.rule, landing.wrapCustom);
			const issues = validateRecord(assetSchema, body, {
				mode: 'replace',
				customFieldDefinitions: [...own.customFields, ...landing.definitions],
			});
			const noun = `new asset (none in scope has ${fieldName(own.key)} "${row.key}")`;
			if (issues.length) {
				fail(new InvalidItemError(noun, issues));
				continue;
			}
			const changes = Object.fromEntries(
				Object.entries(body).map(([name, after]) => [name, { before: null, after }]),
			);
			entries.push({ action: 'created', item: row.item, key: row.key!, body, changes });
			continue;
		}
		const { record, keyChange } = target;
		const { changes, patch } = differences(row, record, own);
		if (keyChange) {
			changes[own.key] = keyChange;
			patch[own.key] = keyChange.after;
		}
		const returning = returningStatus(row, record, missing, changes, patch);
		const said = returning.reason
			? { returning: returning.returning, reason: returning.reason }
			: {};
		if (!Object.keys(patch).length) {
			entries.push({ action: 'unchanged', item: row.item, key: row.key!, record, ...said });
			continue;
		}
		// a change that takes the asset out of its scope would lose it for the next run
		const unmet = landing.rule.unmet(record)
			? undefined
			: landing.rule.unmet(patched(record, patch));
		if (unmet) {
			fail(
				outsideScope(`The asset "${row.key}" (${String(record.id)})`, unmet, 'changed', 'assets'),
			);
			continue;
		}
		const fieldsCleared = countClears(cleared, changes, label);
		const writes = { item: row.item, key: row.key!, record, patch, changes };
		const clears = fieldsCleared.length ? { cleared: fieldsCleared } : {};
		if (returning.restore) {
			restored++;
			entries.push({ action: 'restored', ...writes, ...clears });
		} else entries.push({ action: 'updated', ...writes, ...clears, ...said });
	}

	const { unidentified } = resolution;
	const identifiers =
		own.key === 'externalId'
			? 'External ID'
			: `External ID and no ${fieldLabel(own.key)} of an asset in scope`;
	const heldBack = unidentified
		? `kept: ${unidentified} source row${unidentified > 1 ? 's have' : ' has'} no ${identifiers}, so which assets the source holds is not known`
		: undefined;
	const unmatchable = `kept: it has no ${fieldLabel(own.key)} (or a placeholder), so whether the source has it cannot be told`;
	const removed = { retired: 0, deleted: 0 };
	for (const record of scope) {
		if (resolution.named.has(record)) continue;
		const key = recordKey(record, own.key, own.isPlaceholder);
		const reason = heldBack ?? (key === undefined ? unmatchable : undefined);
		if (missing.action === 'keep' || reason) {
			entries.push({ action: 'missing', key, record, ...(reason ? { reason } : {}) });
		} else if (missing.action === 'delete') {
			removed.deleted++;
			entries.push({ action: 'deleted', key, record });
		} else if (record.status === missing.status) {
			entries.push({ action: 'missing', key, record });
		} else {
			removed.retired++;
			const changes = { status: { before: record.status ?? null, after: missing.status } };
			entries.push({ action: 'retired', key, record, patch: { status: missing.status }, changes });
		}
	}
	return { entries, cleared, removed, restored };
}
