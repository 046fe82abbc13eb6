import type { IDataObject } from 'n8n-workflow';
import { normalizeRecord, normalizeValue, withoutReadOnly } from '../../shared/records';
import { InvalidItemError } from '../../shared/runItems';
import { contractSchema, lineItemFields } from '../../shared/schema/contract';
import { validateRecord, type FieldIssue } from '../../shared/schema/validate';
import { hasValue } from '../../shared/schema/values';
import type { Change, MissingRecords, PlanEntry } from '../../shared/sync/entries';
import { countClears, type GuardedPlan } from '../../shared/sync/guard';
import { recordKey, type Resolution } from '../../shared/sync/identity';
import { cleanKey, keyForm } from '../../shared/sync/keys';
import { sameValue } from '../../shared/sync/values';
import type { ContractSource } from './group';
import { ANONYMOUS_LINES, applyLinePatch, diffLines, lineChangeKey } from './lines';
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

/** The contract a source contract creates: its key, owned and create-only values, its lines. */
function creation(source: ContractSource, own: ContractOwnership) {
	const body: IDataObject = { externalId: source.key! };
	for (const [name, value] of Object.entries({ ...source.values, ...source.createValues }))
		if (value !== null) body[name] = value;
	const changes: Record<string, Change> = Object.fromEntries(
		Object.entries(body).map(([name, after]) => [name, { before: null, after }]),
	);
	if (source.lines) {
		const lines = applyLinePatch(
			[],
			diffLines([], source.lines, own).patch ?? { set: [], remove: [] },
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

/**
 * The plan: what each source contract and each contract in scope becomes, from the resolution
 * (which contract each source contract stands for). Missing are the contracts in scope that no
 * source contract names; a contract whose External ID is a placeholder cannot be told apart.
 */
export function planContracts(
	sources: readonly ContractSource[],
	resolution: Resolution,
	scope: readonly IDataObject[],
	own: ContractOwnership,
	missing: MissingRecords,
): Plan {
	const entries: PlanEntry[] = [];
	const cleared = new Map<string, number>();
	const lineItems = { removed: 0, inScope: 0 };
	for (const record of scope)
		lineItems.inScope += Array.isArray(record.lineItems) ? record.lineItems.length : 0;
	for (const source of sources) {
		const target = resolution.targets.get(source.item)!;
		const { items } = source;
		const key = source.key ?? source.placeholder;
		const fail = (error: Error, item = source.item) =>
			entries.push({ action: 'failed', item, key, error });
		if (target.kind === 'refused') {
			fail(new Error(target.message));
			continue;
		}
		if (source.error) {
			fail(source.error, source.errorItem);
			continue;
		}
		if (target.kind === 'new') {
			const { body, changes } = creation(source, own);
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
		const diff = source.lines ? diffLines(lines, source.lines, own) : undefined;
		if (diff?.error) {
			fail(
				new Error(
					`The contract "${String(record.externalId)}" in scope: ${diff.error}, so it is left as it is`,
				),
			);
			continue;
		}
		if (diff?.patch) {
			const written = new Set(diff.patch.set.map((given) => given.form));
			const changed = applyLinePatch(lines, diff.patch).filter((line) => {
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
			lineItems.removed += diff.removed;
		}
		if (Object.keys(changes).length) {
			countClears(cleared, fieldChanges(changes), clearLabel);
			entries.push({
				action: 'updated',
				item: source.item,
				key: source.key!,
				record,
				patch,
				changes,
				items,
				...(diff?.patch ? { lineItems: diff.patch } : {}),
				...(diff?.kept ? { reason: diff.kept } : {}),
			});
		} else
			entries.push({
				action: 'unchanged',
				item: source.item,
				key: source.key!,
				record,
				items,
				...(diff?.kept ? { reason: diff.kept } : {}),
			});
	}

	const { unidentified } = resolution;
	const heldBack = unidentified
		? `kept: ${unidentified} source row${unidentified > 1 ? 's have' : ' has'} no External ID, so which contracts the source holds is not known`
		: undefined;
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
