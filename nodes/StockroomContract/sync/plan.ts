import type { IDataObject } from 'n8n-workflow';
import { normalizeRecord, normalizeValue, withoutReadOnly } from '../../shared/records';
import { InvalidItemError } from '../../shared/runItems';
import { contractSchema, lineItemFields } from '../../shared/schema/contract';
import { validateRecord, type FieldIssue } from '../../shared/schema/validate';
import { hasValue } from '../../shared/schema/values';
import {
	fingerprint,
	type Change,
	type MissingRecords,
	type PlanEntry,
} from '../../shared/sync/entries';
import { countClears, type GuardedPlan } from '../../shared/sync/guard';
import { recordKey, type Resolution } from '../../shared/sync/identity';
import { cleanKey, keyForm } from '../../shared/sync/keys';
import { fillFromScope, outsideScope, patched, type ScopeRule } from '../../shared/sync/scope';
import { sameValue } from '../../shared/sync/values';
import type { ContractSource } from './group';
import { ANONYMOUS_LINES, applyLinePatch, diffLines, lineChangeKey, lineKeyShape } from './lines';
import { fieldLabel, fieldName, LINE_PREFIX, lineSchema, type ContractOwnership } from './source';

/** A stored contract's value of an owned field, normalized as a source value is (null: none). */
function storedValue(record: IDataObject, name: string, own: ContractOwnership): unknown {
	const value = normalizeValue(contractSchema.fields[name], record[name], own.timezone);
	return hasValue(value) ? value : null;
}

/** A contract's line items as read, in the form they are compared and written. */
export function storedLines(record: IDataObject, timezone: string): IDataObject[] {
	const lines = Array.isArray(record.lineItems) ? (record.lineItems as IDataObject[]) : [];
	return lines.map((line) =>
		withoutReadOnly(lineItemFields, normalizeRecord(lineItemFields, line, timezone)),
	);
}

/** The line issues of lines a write adds or changes, named by their line's External ID. */
function lineIssues(lines: IDataObject[], label: (line: IDataObject, index: number) => string) {
	return lines.flatMap((line, index) =>
		validateRecord(lineSchema, line, { mode: 'replace' }).map((issue): FieldIssue => ({
			...issue,
			path: `${label(line, index)}.${issue.path}`,
			label: issue.label && `Line Item ${issue.label}`,
		})),
	);
}

/** A change's label in the guard's counts: a line field counts under the line items' field. */
const clearLabel = (field: string) => {
	const line = /^lineItems\[".*"\]\.(\w+)$/.exec(field);
	return line ? fieldName(`${LINE_PREFIX}${line[1]}`) : fieldName(field);
};

/** Only field changes can be clears; a line removed is a removal, guarded as one. */
const fieldChanges = (changes: Record<string, Change>) =>
	Object.fromEntries(
		Object.entries(changes).filter(
			([field]) => field !== ANONYMOUS_LINES && !/^lineItems\[".*"\]$/.test(field),
		),
	);

export interface Plan extends GuardedPlan {
	entries: PlanEntry[];
}

/**
 * The contract a source contract creates: its key, owned and create-only values, its lines (a
 * line moving here from another contract as it was there, with what the source does not own).
 */
function creation(
	source: ContractSource,
	own: ContractOwnership,
	rule: ScopeRule,
	arriving?: ReadonlyMap<string, IDataObject>,
) {
	const body: IDataObject = { externalId: source.key! };
	for (const [name, value] of Object.entries({ ...source.values, ...source.createValues }))
		if (value !== null) body[name] = value;
	fillFromScope(body, rule);
	const changes: Record<string, Change> = Object.fromEntries(
		Object.entries(body).map(([name, after]) => [name, { before: null, after }]),
	);
	if (source.lines) {
		const lines = applyLinePatch(
			[],
			diffLines([], source.lines, own, { owned: () => false, arriving }).patch ?? {
				set: [],
				remove: [],
			},
		);
		body.lineItems = lines;
		for (const line of lines)
			if (line.externalId !== undefined)
				changes[lineChangeKey(String(line.externalId))] = { before: null, after: line };
		const anonymous = lines.filter((line) => line.externalId === undefined);
		if (anonymous.length) changes[ANONYMOUS_LINES] = { before: null, after: anonymous };
	}
	return { body, changes };
}

/** What the source's moves of line items between contracts mean for each contract. */
interface LineMoves {
	/** Notes for the contract a line leaves, and for the one it arrives at. */
	notes: Map<IDataObject | ContractSource, string[]>;
	/** Contracts refused: a line they would add stays on another contract too. */
	refused: Map<ContractSource, string>;
	/** Per contract, the lines moving to it (key form), as they are on the contract they leave. */
	arriving: Map<ContractSource, Map<string, IDataObject>>;
}

/**
 * Line items that moved between contracts in the source: a line External ID stored on one
 * contract in scope that the source now gives under another. Only where the register's line
 * External IDs are identities of their own (no key on two contracts in scope): where they are line
 * numbers (1, 2, 3 on every order), the same key elsewhere is another line. A contract may take
 * such a line only when the contract that has it loses it in this plan (removed as one the source
 * no longer has there, or the whole contract deleted as missing): the move is said on both.
 * Otherwise the line would count twice, and the contract it arrives at is refused, naming both;
 * a refused contract keeps its lines, so this is decided until nothing more is refused.
 */
function lineMoves(
	sources: readonly ContractSource[],
	resolution: Resolution,
	scope: readonly IDataObject[],
	own: ContractOwnership,
	{
		removes,
		deletesMissing,
	}: { removes: (key: string) => boolean; deletesMissing: (record: IDataObject) => boolean },
): LineMoves {
	const moves: LineMoves = { notes: new Map(), refused: new Map(), arriving: new Map() };
	const holder = new Map<string, IDataObject | null>();
	for (const record of scope) {
		for (const line of Array.isArray(record.lineItems) ? (record.lineItems as IDataObject[]) : []) {
			const key = cleanKey(line.externalId);
			if (key === undefined || own.isPlaceholder(key)) continue;
			const form = keyForm(key);
			const known = holder.get(form);
			holder.set(form, known === undefined || known === record ? record : null);
		}
	}
	if (!holder.size || [...holder.values()].some((record) => record === null)) return moves;
	const sourceOf = new Map<IDataObject, ContractSource>();
	const selfOf = new Map<ContractSource, IDataObject>();
	for (const source of sources) {
		const target = resolution.targets.get(source.item);
		if (target?.kind !== 'record') continue;
		sourceOf.set(target.record, source);
		selfOf.set(source, target.record);
	}
	const taking = sources.filter((source) => {
		const target = resolution.targets.get(source.item);
		return !source.error && target?.kind !== 'refused';
	});
	const gives = (source: ContractSource, form: string) =>
		source.lines?.some((line) => line.key !== undefined && keyForm(line.key) === form) ?? false;
	/** Why the contract that has the line keeps it in this plan; undefined when it loses it. */
	const keeps = (from: IDataObject, form: string, key: string, to: string) => {
		const fromKey = String(from.externalId);
		const fromSource = sourceOf.get(from);
		if (!fromSource)
			return deletesMissing(from)
				? undefined
				: `is on the contract "${fromKey}" in the register, which the source no longer has and this run keeps (Missing Records)`;
		if (fromSource.error || moves.refused.has(fromSource))
			return `is on the contract "${fromKey}" in the register, which this run leaves as it is (its rows are refused)`;
		if (gives(fromSource, form))
			return `is under both "${fromKey}" and "${to}" in the source, and on "${fromKey}" in the register`;
		return removes(key)
			? undefined
			: `is on the contract "${fromKey}" in the register, and the source now gives it under "${to}" instead; this run does not remove it from "${fromKey}" (Line Items: Keep, or a line the source does not own)`;
	};
	for (let changed = true; changed;) {
		changed = false;
		for (const source of taking) {
			if (moves.refused.has(source)) continue;
			for (const line of source.lines ?? []) {
				if (line.key === undefined) continue;
				const form = keyForm(line.key);
				const from = holder.get(form);
				if (!from || from === selfOf.get(source)) continue;
				const why = keeps(from, form, line.key, source.key!);
				if (!why) continue;
				moves.refused.set(
					source,
					`Line Item ${line.key} ${why}: added to "${source.key}", it would count twice. Remove it where it no longer belongs (Line Items: Remove Them does so for the line items the source owns), or correct the source; "${source.key}" is left as it is`,
				);
				changed = true;
				break;
			}
		}
	}
	const note = (on: IDataObject | ContractSource, text: string) =>
		(moves.notes.get(on) ?? moves.notes.set(on, []).get(on)!).push(text);
	for (const source of taking) {
		if (moves.refused.has(source)) continue;
		for (const line of source.lines ?? []) {
			if (line.key === undefined) continue;
			const form = keyForm(line.key);
			const from = holder.get(form);
			if (!from || from === selfOf.get(source)) continue;
			note(from, `Line Item ${line.key} moves to the contract "${source.key}"`);
			note(
				source,
				`Line Item ${line.key} moves here from the contract "${String(from.externalId)}"`,
			);
			const moved = storedLines(from, own.timezone).find((stored) => {
				const storedKey = cleanKey(stored.externalId);
				return storedKey !== undefined && keyForm(storedKey) === form;
			});
			const arriving = moves.arriving.get(source) ?? new Map<string, IDataObject>();
			moves.arriving.set(source, arriving.set(form, moved!));
		}
	}
	return moves;
}

/**
 * Which stored line items Line Items: Remove Them may remove: those whose External ID has the
 * shape of a line the source gives (Shaped Like the Source's: "L-3" like "L-17", not "MANUAL-1"),
 * those matching a pattern, or any.
 */
export function lineOwnership(
	own: ContractOwnership,
	sources: readonly ContractSource[],
): (key: string) => boolean {
	if (own.linesOwned.kind === 'any') return () => true;
	if (own.linesOwned.kind === 'pattern') return own.linesOwned.test;
	const shapes = new Set<string>();
	for (const source of sources)
		for (const line of source.lines ?? [])
			if (line.key !== undefined) shapes.add(lineKeyShape(line.key));
	return (key) => shapes.has(lineKeyShape(key));
}

/**
 * For rows without External ID under a row of a contract (only blank rows between): a merged
 * cell, the hint says, naming the row with the number. Gives the hint per blank row's item.
 */
function mergedCellHints(sources: readonly ContractSource[]): Map<number, string> {
	const byItem = new Map<number, ContractSource>();
	for (const source of sources) for (const item of source.items) byItem.set(item, source);
	const blank = (source: ContractSource | undefined) =>
		source !== undefined && source.key === undefined && source.placeholder === undefined;
	const hints = new Map<number, string>();
	for (const source of sources) {
		if (!blank(source)) continue;
		let above = source.item - 1;
		while (blank(byItem.get(above))) above--;
		const numbered = byItem.get(above);
		if (numbered?.key !== undefined)
			hints.set(
				source.item,
				`. The row above (item ${above}) is of the contract "${numbered.key}": an export with merged cells gives the number on a contract's first row only; fill the column down in the export`,
			);
	}
	return hints;
}

/**
 * The plan: what each source contract and each contract in scope becomes, from the resolution
 * (which contract each source contract stands for). Missing are the contracts in scope that no
 * source contract names; a contract whose External ID is a placeholder cannot be told apart.
 * Line items are removed only when no row is without External ID (it may be any contract's: a
 * merged cell), and what a contract is created or changed into must land in the scope.
 */
export function planContracts(
	sources: readonly ContractSource[],
	resolution: Resolution,
	scope: readonly IDataObject[],
	own: ContractOwnership,
	missing: MissingRecords,
	rule: ScopeRule,
): Plan {
	const entries: PlanEntry[] = [];
	const cleared = new Map<string, number>();
	const lineItems = { removed: 0, inScope: 0, named: [] as string[] };
	for (const record of scope)
		lineItems.inScope += Array.isArray(record.lineItems) ? record.lineItems.length : 0;
	const { unidentified } = resolution;
	const rowsUntold = (what: string) =>
		`kept: ${unidentified} source row${unidentified > 1 ? 's have' : ' has'} no External ID, so which ${what} the source holds is not known`;
	const owned = lineOwnership(own, sources);
	const holdBack = unidentified ? rowsUntold('line items') : undefined;
	const moves = lineMoves(sources, resolution, scope, own, {
		removes: (key) =>
			!holdBack && (own.wholeList || (own.missingLineItems === 'remove' && owned(key))),
		deletesMissing: (record) =>
			missing === 'delete' &&
			!unidentified &&
			!resolution.named.has(record) &&
			recordKey(record, 'externalId', own.isPlaceholder) !== undefined,
	});
	const hints = mergedCellHints(sources);
	for (const source of sources) {
		const target = resolution.targets.get(source.item)!;
		const { items } = source;
		const key = source.key ?? source.placeholder;
		const name = source.values.vendorName ?? source.createValues.vendorName;
		const fail = (error: Error, item = source.item) =>
			entries.push({
				action: 'failed',
				item,
				...(items.length > 1 ? { items } : {}),
				key,
				...(typeof name === 'string' ? { name } : {}),
				error,
				row: fingerprint(source),
			});
		if (target.kind === 'refused') {
			fail(new Error(`${target.message}${hints.get(source.item) ?? ''}`));
			continue;
		}
		if (source.error) {
			fail(source.error, source.errorItem);
			continue;
		}
		const doubled = moves.refused.get(source);
		if (doubled) {
			fail(new Error(doubled));
			continue;
		}
		const notes = moves.notes.get(source) ?? [];
		if (target.kind === 'new') {
			const { body, changes } = creation(source, own, rule, moves.arriving.get(source));
			const issues = validateRecord(contractSchema, body, { mode: 'replace' });
			if (issues.length) {
				const noun = `new contract (none in scope has External ID (externalId) "${source.key}")`;
				fail(new InvalidItemError(noun, issues));
				continue;
			}
			entries.push({
				action: 'created',
				item: source.item,
				key: source.key!,
				body,
				changes,
				items,
				...(notes.length ? { reason: notes.join('; ') } : {}),
			});
			continue;
		}
		const { record } = target;
		const changes: Record<string, Change> = {};
		const patch: IDataObject = {};
		for (const [name, after] of Object.entries(source.values)) {
			const before = storedValue(record, name, own);
			if (sameValue(before, after)) continue;
			changes[name] = { before, after };
			patch[name] = after;
		}
		const lines = source.lines ? storedLines(record, own.timezone) : [];
		const diff = source.lines
			? diffLines(lines, source.lines, own, {
					holdBack,
					owned,
					arriving: moves.arriving.get(source),
				})
			: undefined;
		if (diff?.error) {
			fail(
				new Error(
					`The contract "${String(record.externalId)}" in scope: ${diff.error}, so it is left as it is`,
				),
			);
			continue;
		}
		let after: IDataObject | undefined;
		if (diff?.patch) {
			const written = new Set(diff.patch.set.map((given) => given.form));
			const merged = applyLinePatch(lines, diff.patch);
			const changed = merged.filter((line) => {
				const lineKey = cleanKey(line.externalId);
				return lineKey === undefined
					? Boolean(diff.patch!.anonymous)
					: written.has(keyForm(lineKey));
			});
			const issues = lineIssues(changed, (line, index) =>
				line.externalId === undefined
					? `lineItems[${index}]`
					: lineChangeKey(String(line.externalId)),
			);
			if (issues.length) {
				fail(
					new InvalidItemError(`line items of the contract "${String(record.externalId)}"`, issues),
				);
				continue;
			}
			Object.assign(changes, diff.changes);
			after = { ...patched(record, patch), lineItems: merged };
		}
		const reason = [...notes, ...(moves.notes.get(record) ?? []), ...(diff?.kept ?? [])].join('; ');
		const why = reason ? { reason } : {};
		if (!Object.keys(changes).length) {
			entries.push({
				action: 'unchanged',
				item: source.item,
				key: source.key!,
				record,
				items,
				...why,
			});
			continue;
		}
		// a change that takes the contract out of its scope would lose it for the next run
		const unmet = rule.unmet(record) ? undefined : rule.unmet(after ?? patched(record, patch));
		if (unmet) {
			fail(
				outsideScope(
					`The contract "${source.key}" (${String(record.id)})`,
					unmet,
					'changed',
					'contracts',
				),
			);
			continue;
		}
		lineItems.removed += diff?.removed ?? 0;
		for (const line of diff?.removedKeys ?? [])
			if (lineItems.named.length < 5) lineItems.named.push(`${source.key} ${line}`);
		const fieldsCleared = countClears(
			cleared,
			fieldChanges(changes),
			clearLabel,
			[...(diff?.cleared ?? [])].map((name) => fieldName(`${LINE_PREFIX}${name}`)),
		);
		entries.push({
			action: 'updated',
			item: source.item,
			key: source.key!,
			record,
			patch,
			changes,
			items,
			...(diff?.patch ? { lineItems: diff.patch } : {}),
			...(fieldsCleared.length ? { cleared: fieldsCleared } : {}),
			...why,
		});
	}

	const heldBack = unidentified ? rowsUntold('contracts') : undefined;
	const unmatchable = `kept: its ${fieldLabel('externalId')} is a placeholder, so whether the source has it cannot be told`;
	const removed = { retired: 0, deleted: 0 };
	for (const record of scope) {
		if (resolution.named.has(record)) continue;
		const key = recordKey(record, 'externalId', own.isPlaceholder);
		const reason = heldBack ?? (key === undefined ? unmatchable : undefined);
		if (missing === 'delete' && !reason) {
			removed.deleted++;
			entries.push({ action: 'deleted', key, record });
		} else entries.push({ action: 'missing', key, record, ...(reason ? { reason } : {}) });
	}
	return { entries, cleared, removed, lineItems };
}
