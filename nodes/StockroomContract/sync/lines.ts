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

/** What a contract's line items may lose tonight, decided for the whole source. */
export interface LineRules {
	/** Why no line item may be removed from this contract now (rows that cannot be told), if so. */
	holdBack?: string;
	/**
	 * Whether a stored line, by its External ID, is one the source owns: Line Items: Remove Them
	 * removes only those (never a line a person added with a reference of their own).
	 */
	owned: (key: string) => boolean;
	/** Lines (key form) moving here from another contract, as they are there. */
	arriving?: ReadonlyMap<string, IDataObject>;
}

export interface LineDiff {
	changes: Record<string, Change>;
	/** What the write does to the lines; undefined when nothing changes. */
	patch?: LineItemPatch;
	/** Lines the contract loses, and their External IDs (lines without one are counted only). */
	removed: number;
	removedKeys: string[];
	/** Line item fields emptied on lines without External ID, read in order (the guard counts them). */
	cleared: Set<string>;
	/** Why the lines cannot be matched, if they cannot. */
	error?: string;
	/** Why some of the contract's lines stay that the source does not have, one line per reason. */
	kept: string[];
}

const plural = (count: number, one: string, many = `${one}s`) =>
	`${count} ${count === 1 ? one : many}`;

/** The line keys a reason names: the first few, and how many more. */
const keysSaid = (keys: readonly string[]) =>
	`${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ` and ${keys.length - 3} more` : ''}`;

/**
 * The source's line items against a contract's stored ones (see above), under the night's rules:
 * lines are removed only when nothing holds removals back, and (Remove Them) only the lines the
 * source owns; a stored line whose External ID is a placeholder cannot be named by the source and
 * is kept unless the source owns the whole list. Linear in the lines.
 */
export function diffLines(
	stored: readonly IDataObject[],
	source: readonly SourceLine[],
	own: ContractOwnership,
	rules: LineRules,
): LineDiff {
	const changes: Record<string, Change> = {};
	const patch: LineItemPatch = { set: [], remove: [] };
	const byForm = new Map<string, IDataObject>();
	const anonymous: IDataObject[] = [];
	const kept: string[] = [];
	const cleared = new Set<string>();
	const unmatchable: string[] = [];
	const nothing = { changes, removed: 0, removedKeys: [], cleared, kept };
	for (const line of stored) {
		const key = cleanKey(line.externalId);
		if (key === undefined) anonymous.push(line);
		else if (byForm.has(keyForm(key)))
			return {
				...nothing,
				error: `two of its line items have External ID "${key}" (case and spaces aside): which one the source means is not clear`,
			};
		else byForm.set(keyForm(key), line);
		// the source cannot name a line by a placeholder: kept, unless the source owns the list
		if (key !== undefined && !own.wholeList && own.isPlaceholder(key)) unmatchable.push(key);
	}
	const said = new Set<string>();
	for (const line of source) {
		if (line.key === undefined) continue;
		const form = keyForm(line.key);
		said.add(form);
		const current = byForm.get(form);
		if (!current) {
			// a line moving from another contract keeps what the source does not own (its notes)
			const moved = rules.arriving?.get(form);
			const externalId = moved ? String(moved.externalId) : line.key;
			changes[lineChangeKey(externalId)] = {
				before: null,
				after: withValues(moved ?? { externalId }, line.values),
			};
			patch.set.push({ form, externalId, values: line.values, ...(moved ? { moved } : {}) });
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
	const removedKeys: string[] = [];
	const heldBack: string[] = [];
	const notOwned: string[] = [];
	const removes = own.wholeList || own.missingLineItems === 'remove';
	for (const [form, line] of byForm) {
		if (said.has(form)) continue;
		const key = cleanKey(line.externalId)!;
		if (!removes || (!own.wholeList && own.isPlaceholder(key))) continue;
		if (rules.holdBack) {
			heldBack.push(key);
			continue;
		}
		if (!own.wholeList && !rules.owned(key)) {
			notOwned.push(key);
			continue;
		}
		changes[lineChangeKey(key)] = { before: shownLine(line, own), after: null };
		patch.remove.push(form);
		removedKeys.push(key);
	}
	if (unmatchable.length && removes)
		kept.push(
			`kept: ${plural(unmatchable.length, 'line item')} with a placeholder External ID (${keysSaid(unmatchable)}), which the source cannot name`,
		);
	if (notOwned.length)
		kept.push(
			`kept: ${plural(notOwned.length, 'line item')} the source does not have and does not own (${keysSaid(notOwned)}: not like the line items the source gives; Line Items the Source Owns)`,
		);
	if (heldBack.length) kept.push(`${rules.holdBack} (${keysSaid(heldBack)} stay)`);
	let removed = removedKeys.length;
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
		const loses = before.length > after.length;
		if (sameValue(before, after)) {
			// as they are
		} else if (rules.holdBack && loses) {
			kept.push(
				`${rules.holdBack} (its ${plural(anonymous.length, 'line item')} without External ID stay)`,
			);
		} else {
			changes[ANONYMOUS_LINES] = {
				before: before.length ? anonymous.map((line) => shownLine(line, own)) : null,
				after: after.length ? given.map((line) => withoutNulls(line.values)) : null,
			};
			patch.anonymous = given.map((line) => withoutNulls(line.values));
			removed += Math.max(0, anonymous.length - given.length);
			// lines without External ID are read in order: a value the same line loses is cleared
			for (let index = 0; index < Math.min(before.length, after.length); index++)
				for (const name of own.lineFields)
					if (hasValue(before[index][name]) && !hasValue(after[index][name])) cleared.add(name);
		}
	}
	if (unremovable)
		kept.push(
			`kept: ${plural(anonymous.length, 'line item')} without External ID, which the service removes only when a write sends line items without External ID or no line item at all`,
		);
	const changed = patch.set.length || patch.remove.length || patch.anonymous;
	return { changes, removed, removedKeys, cleared, kept, ...(changed ? { patch } : {}) };
}

/** A line External ID's shape: case aside, each run of digits one digit ("L-017" is "l-0"). */
export const lineKeyShape = (key: string): string => keyForm(key).replace(/\d+/g, '0');

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
		result.push(withValues(given.moved ?? { externalId: given.externalId }, given.values));
	return [...result, ...(patch.anonymous ?? [])];
}
