import type { IDataObject } from 'n8n-workflow';
import { normalizeValue } from '../../shared/records';
import { lineItemFields } from '../../shared/schema/contract';
import { hasValue } from '../../shared/schema/values';
import type { Change, LineItemPatch } from '../../shared/sync/entries';
import { cleanKey, keyForm } from '../../shared/sync/keys';
import { sameValue } from '../../shared/sync/values';
import type { ContractOwnership, SourceLine } from './source';

/**
 * A contract's line items against the source's: matched by External ID (trimmed, case aside),
 * owned fields compared, the lines the source no longer has kept or removed, and, when the source
 * owns the whole list, the lines without External ID replaced as a whole.
 */

/** How a line item's change is named in a plan: `lineItems["L-2"].amount`. */
export const lineChangeKey = (externalId: string, field?: string): string =>
	`lineItems[${JSON.stringify(externalId)}]${field === undefined ? '' : `.${field}`}`;

/** The change of a contract's lines without External ID, replaced as a whole. */
export const ANONYMOUS_LINES = 'lineItems[without External ID]';

/**
 * A plan's change as a report names it: a contract field's label, "Line Item L-2 Amount", "Line
 * Item L-2" (added or removed), "Line Items without External ID".
 */
export function changeLabel(change: string, label: (field: string) => string): string {
	if (change === ANONYMOUS_LINES) return 'Line Items without External ID';
	const line = /^lineItems\[(".*")\](?:\.(\w+))?$/.exec(change);
	if (!line) return label(change);
	const key = JSON.parse(line[1]) as string;
	return `Line Item ${key}${line[2] ? ` ${lineItemFields[line[2]]?.displayName ?? line[2]}` : ''}`;
}

/** A line's value of a line item field, normalized as a source value is (null: none). */
function storedValue(line: IDataObject, name: string, timezone: string): unknown {
	const value = normalizeValue(lineItemFields[name], line[name], timezone);
	return hasValue(value) ? value : null;
}

/** Values without the cleared ones: what a line written with them holds. */
const withoutNulls = (values: IDataObject): IDataObject =>
	Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null)) as IDataObject;

/** A stored line as a plan shows it: its External ID and owned values. */
function shownLine(line: IDataObject, own: ContractOwnership): IDataObject {
	const shown: IDataObject = {};
	if (cleanKey(line.externalId) !== undefined) shown.externalId = line.externalId;
	for (const name of own.lineFields) {
		const value = storedValue(line, name, own.timezone);
		if (value !== null) shown[name] = value as IDataObject[string];
	}
	return shown;
}

/** The owned values of lines without External ID, each field present (null: none). */
const ownedRows = (
	lines: IDataObject[],
	own: ContractOwnership,
	read: (line: IDataObject, name: string) => unknown,
) =>
	lines.map((line) => Object.fromEntries(own.lineFields.map((name) => [name, read(line, name)])));

export interface LineDiff {
	changes: Record<string, Change>;
	/** What the write does to the lines; undefined when nothing changes. */
	patch?: LineItemPatch;
	/** Lines the contract loses. */
	removed: number;
	/** Why the lines cannot be matched, if they cannot. */
	error?: string;
	/** Why some of the contract's lines stay although the source owns the whole list. */
	kept?: string;
}

/** The source's line items against a contract's stored ones (see above). Linear in the lines. */
export function diffLines(
	stored: readonly IDataObject[],
	source: readonly SourceLine[],
	own: ContractOwnership,
): LineDiff {
	const changes: Record<string, Change> = {};
	const patch: LineItemPatch = { set: [], remove: [] };
	const byForm = new Map<string, IDataObject>();
	const anonymous: IDataObject[] = [];
	for (const line of stored) {
		const key = cleanKey(line.externalId);
		if (key === undefined) anonymous.push(line);
		else if (byForm.has(keyForm(key)))
			return {
				changes,
				removed: 0,
				error: `two of its line items have External ID "${key}" (case and spaces aside): which one the source means is not clear`,
			};
		else byForm.set(keyForm(key), line);
	}
	const said = new Set<string>();
	for (const line of source) {
		if (line.key === undefined) continue;
		const form = keyForm(line.key);
		said.add(form);
		const current = byForm.get(form);
		if (!current) {
			changes[lineChangeKey(line.key)] = {
				before: null,
				after: { externalId: line.key, ...withoutNulls(line.values) },
			};
			patch.set.push({ form, externalId: line.key, values: line.values });
			continue;
		}
		const shownKey = cleanKey(current.externalId)!;
		let differs = false;
		for (const [name, after] of Object.entries(line.values)) {
			const before = storedValue(current, name, own.timezone);
			if (sameValue(before, after)) continue;
			changes[lineChangeKey(shownKey, name)] = { before, after };
			differs = true;
		}
		// the stored External ID as it is written: the service matches it exactly
		if (differs)
			patch.set.push({ form, externalId: String(current.externalId), values: line.values });
	}
	let removed = 0;
	if (own.wholeList || own.missingLineItems === 'remove') {
		for (const [form, line] of byForm) {
			if (said.has(form)) continue;
			changes[lineChangeKey(cleanKey(line.externalId)!)] = {
				before: shownLine(line, own),
				after: null,
			};
			patch.remove.push(form);
			removed++;
		}
	}
	// the service removes lines without External ID only when a write sends others, or clears
	// the list: a list of the source's with External IDs only cannot replace them
	const given = source.filter((line) => line.key === undefined);
	const unremovable = own.wholeList && anonymous.length > 0 && !given.length && said.size > 0;
	if (own.wholeList && !unremovable) {
		const before = ownedRows(anonymous, own, (line, name) => storedValue(line, name, own.timezone));
		const after = ownedRows(
			given.map((line) => line.values),
			own,
			(values, name) => values[name] ?? null,
		);
		if (!sameValue(before, after)) {
			changes[ANONYMOUS_LINES] = {
				before: before.length ? anonymous.map((line) => shownLine(line, own)) : null,
				after: after.length ? given.map((line) => withoutNulls(line.values)) : null,
			};
			patch.anonymous = given.map((line) => withoutNulls(line.values));
			removed += Math.max(0, anonymous.length - given.length);
		}
	}
	const changed = patch.set.length || patch.remove.length || patch.anonymous;
	return {
		changes,
		removed,
		...(changed ? { patch } : {}),
		...(unremovable
			? {
					kept: `kept: ${anonymous.length} line item${anonymous.length > 1 ? 's' : ''} without External ID, which the service removes only when a write sends line items without External ID or no line item at all`,
				}
			: {}),
	};
}

/** A line with values over it (null: the field is cleared). */
function withValues(line: IDataObject, values: IDataObject): IDataObject {
	const result = { ...line };
	for (const [name, value] of Object.entries(values)) {
		if (value === null) delete result[name];
		else result[name] = value;
	}
	return result;
}

/**
 * The line items a write sends: the contract's lines as they are now, with the patch over them
 * (owned values written, lines removed, new lines added after, lines without External ID
 * replaced when the patch says so). Every line kept is sent: the service removes a line whose
 * External ID a write leaves out.
 */
export function applyLinePatch(lines: readonly IDataObject[], patch: LineItemPatch): IDataObject[] {
	const set = new Map(patch.set.map((given) => [given.form, given]));
	const remove = new Set(patch.remove);
	const result: IDataObject[] = [];
	for (const line of lines) {
		const key = cleanKey(line.externalId);
		if (key === undefined) {
			if (!patch.anonymous) result.push(line);
			continue;
		}
		const form = keyForm(key);
		if (remove.has(form)) continue;
		const given = set.get(form);
		set.delete(form);
		result.push(given ? withValues(line, given.values) : line);
	}
	for (const given of set.values())
		result.push(withValues({ externalId: given.externalId }, given.values));
	return [...result, ...(patch.anonymous ?? [])];
}
