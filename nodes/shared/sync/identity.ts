import type { IDataObject } from 'n8n-workflow';
import { cleanKey, keyForm, type PlaceholderTest } from './keys';

/**
 * Which record each source row stands for, decided once for the whole input after the scope's
 * walk, before anything is counted as missing. A row names a record by its key (the Match On
 * field) and, when the key is another field, by its External ID: every asset has one, and it
 * stays when a serial number is corrected or a tag is added. Rules:
 *
 * - key and External ID find the same record, or only one of them finds one: the row stands for
 *   it (found by its External ID alone, the record's key is changed to the row's);
 * - they find two different records, or the key finds a record whose External ID is another:
 *   the row is refused, naming both;
 * - a key or External ID that two rows share, or that two records in scope share, refuses those
 *   rows, naming a few items and the count;
 * - a row whose key is blank or a placeholder is refused; it still names the record its External
 *   ID finds. A row with neither, or (key not External ID) a row whose key is on no record in
 *   scope and that has no External ID, is refused and holds every removal back: which record it
 *   is, is unknown (it may be one whose key was corrected);
 * - every record a row names, whatever became of the row, is never missing.
 */

/** What identifies a source row. */
export interface RowIdentity {
	item: number;
	/** The key, trimmed; undefined when blank or a placeholder. */
	key?: string;
	/** The key as given when it is a placeholder. */
	placeholder?: string;
	/** The row's External ID, trimmed, when the key is another field. */
	externalId?: string;
}

/** How a row's identity is described in messages. */
export interface IdentityWords {
	/** The key field's API name, e.g. `serialNumber`. */
	keyField: string;
	/** The key field's label: "Serial Number". */
	keyLabel: string;
	/** "asset". */
	noun: string;
	/** "assets". */
	nouns: string;
}

export type RowTarget =
	/** The record in scope the row stands for; `keyChange` when it was found by External ID alone. */
	| { kind: 'record'; record: IDataObject; keyChange?: { before: unknown; after: string } }
	/** No record in scope: the row creates one (unless one exists outside the scope). */
	| { kind: 'new' }
	| { kind: 'refused'; message: string };

export interface Resolution {
	targets: Map<number, RowTarget>;
	/** The records in scope some row names. */
	named: Set<IDataObject>;
	/** Rows that may stand for any record in scope: which records the source holds is not known. */
	unidentified: number;
}

/** A noun with its indefinite article: "an asset", "a contract". */
export const withArticle = (noun: string): string =>
	`${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/**
 * A few items (or ids) and how many there are: "items 0, 4, 9 and 49,997 more". `values` may
 * hold only the first few of `total`.
 */
export function describeItems(
	values: ReadonlyArray<number | string>,
	[one, many] = ['item', 'items'],
	total = values.length,
): string {
	const shown = values.slice(0, total > 3 ? 3 : total);
	const rest = total - shown.length;
	if (rest > 0) return `${many} ${shown.join(', ')} and ${rest.toLocaleString('en-US')} more`;
	if (shown.length === 1) return `${one} ${shown[0]}`;
	return `${many} ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

const describeIds = (records: readonly IDataObject[]) =>
	describeItems(
		records.slice(0, 3).map((record) => String(record.id)),
		['id', 'ids'],
		records.length,
	);

const NONE: readonly IDataObject[] = [];
const NO_ROWS: readonly RowIdentity[] = [];

function groupBy<T>(values: Iterable<T>, form: (value: T) => string | undefined) {
	const groups = new Map<string, T[]>();
	for (const value of values) {
		const key = form(value);
		if (key === undefined) continue;
		const group = groups.get(key);
		if (group) group.push(value);
		else groups.set(key, [value]);
	}
	return groups;
}

/** The key of a record in scope, when it has a usable one. */
export function recordKey(
	record: IDataObject,
	keyField: string,
	isPlaceholder: PlaceholderTest,
): string | undefined {
	const key = cleanKey(record[keyField]);
	return key === undefined || isPlaceholder(key) ? undefined : key;
}

/** Decides what each row stands for (see above). Linear in rows and records. */
export function resolveRows(
	rows: readonly RowIdentity[],
	scope: readonly IDataObject[],
	words: IdentityWords,
	isPlaceholder: PlaceholderTest,
): Resolution {
	const byExternalId = words.keyField !== 'externalId';
	const keyName = `${words.keyLabel} (${words.keyField})`;
	const scopeByKey = groupBy(scope, (record) => {
		const key = recordKey(record, words.keyField, isPlaceholder);
		return key === undefined ? undefined : keyForm(key);
	});
	const scopeByExternalId = byExternalId
		? groupBy(scope, (record) => {
				const externalId = cleanKey(record.externalId);
				return externalId === undefined ? undefined : keyForm(externalId);
			})
		: new Map<string, IDataObject[]>();
	const rowsByKey = groupBy(rows, (row) => (row.key === undefined ? undefined : keyForm(row.key)));
	const rowsByExternalId = groupBy(rows, (row) =>
		row.externalId === undefined ? undefined : keyForm(row.externalId),
	);

	// a group's first items only: 50,000 rows on one placeholder must stay linear
	const itemsOf = (twins: readonly RowIdentity[]) =>
		describeItems(
			twins.slice(0, 3).map((twin) => twin.item),
			undefined,
			twins.length,
		);
	const targets = new Map<number, RowTarget>();
	const named = new Set<IDataObject>();
	const namedGroups = new Set<readonly IDataObject[]>();
	const name = (group: readonly IDataObject[]) => {
		if (group.length === 1) named.add(group[0]);
		// a shared group once: many rows may name one key that many records share
		else if (group.length > 1 && !namedGroups.has(group)) {
			namedGroups.add(group);
			for (const record of group) named.add(record);
		}
	};
	// the first row that stands for each record, and the records more than one row stands for
	const claimedBy = new Map<IDataObject, RowIdentity>();
	const claimedTwice = new Map<IDataObject, RowIdentity[]>();
	const claim = (row: RowIdentity, record: IDataObject, target: RowTarget) => {
		targets.set(row.item, target);
		const first = claimedBy.get(record);
		if (!first) return void claimedBy.set(record, row);
		const twins = claimedTwice.get(record);
		if (twins) twins.push(row);
		else claimedTwice.set(record, [first, row]);
	};
	let unidentified = 0;
	const refuse = (row: RowIdentity, message: string) =>
		targets.set(row.item, { kind: 'refused', message });
	const externalIdName = 'External ID (externalId)';

	for (const row of rows) {
		const keyed = row.key === undefined ? undefined : keyForm(row.key);
		const idForm = row.externalId === undefined ? undefined : keyForm(row.externalId);
		const byKey = (keyed !== undefined && scopeByKey.get(keyed)) || NONE;
		const byId = (idForm !== undefined && scopeByExternalId.get(idForm)) || NONE;
		name(byKey);
		name(byId);

		const keyTwins = keyed === undefined ? NO_ROWS : rowsByKey.get(keyed)!;
		const idTwins = idForm === undefined ? NO_ROWS : rowsByExternalId.get(idForm)!;
		if (keyTwins.length > 1) {
			refuse(
				row,
				`${keyName} "${row.key}" is in ${itemsOf(keyTwins)} of the input (case and spaces aside): each key may appear once`,
			);
			// a repeated key that is on no record in scope, with no External ID: as for one such
			// row (below), it may be a record in scope whose key was corrected
			if (!byKey.length && byExternalId && row.externalId === undefined) unidentified++;
		} else if (idTwins.length > 1) {
			refuse(
				row,
				`${externalIdName} "${row.externalId}" is in ${itemsOf(idTwins)} of the input (case and spaces aside): each may appear once`,
			);
		} else if (byKey.length > 1) {
			refuse(
				row,
				`${keyName} "${row.key}" belongs to ${byKey.length} ${words.nouns} in scope (${describeIds(byKey)}, case and spaces aside): each key may belong to one`,
			);
		} else if (byId.length > 1) {
			refuse(
				row,
				`${externalIdName} "${row.externalId}" belongs to ${byId.length} ${words.nouns} in scope (${describeIds(byId)}, case and spaces aside): each may belong to one`,
			);
		} else if (byKey[0] && row.externalId !== undefined && byKey[0] !== byId[0]) {
			const [record] = byKey;
			refuse(
				row,
				`${keyName} "${row.key}" is the ${words.noun} ${String(record.id)} in scope, whose External ID is "${String(record.externalId)}", but this row's External ID is "${row.externalId}"${byId[0] ? ` (the ${words.noun} ${String(byId[0].id)})` : ''}: which ${words.noun} the row means is not clear, so neither is changed. Correct the source`,
			);
		} else if (row.key === undefined) {
			const what =
				row.placeholder === undefined
					? 'is empty'
					: `is "${row.placeholder}", a placeholder (Placeholder Keys), not a key`;
			const kept = byId[0]
				? `; the ${words.noun} with External ID "${String(byId[0].externalId)}" is kept as it is`
				: '';
			refuse(
				row,
				`${keyName} ${what}: the row cannot be matched to ${withArticle(words.noun)}${kept}`,
			);
			if (row.externalId === undefined) unidentified++;
		} else if (byKey[0]) {
			claim(row, byKey[0], { kind: 'record', record: byKey[0] });
		} else if (byId[0]) {
			const [record] = byId;
			claim(row, record, {
				kind: 'record',
				record,
				keyChange: { before: record[words.keyField] ?? null, after: row.key },
			});
		} else if (byExternalId && row.externalId === undefined) {
			// it may be an asset in scope whose key was corrected: without an External ID that
			// cannot be told, and a new asset could not be created either
			refuse(
				row,
				`${keyName} "${row.key}" is on no ${words.noun} in scope, and the row has no External ID: it can be neither created nor told apart from ${withArticle(words.noun)} whose ${words.keyLabel} changed`,
			);
			unidentified++;
		} else {
			targets.set(row.item, { kind: 'new' });
		}
	}

	// two rows that found one record by different means (one by key, one by External ID)
	for (const [record, twins] of claimedTwice) {
		const items = itemsOf(twins);
		for (const row of twins)
			refuse(
				row,
				`${items} of the input all stand for the ${words.noun} ${String(record.id)} (by ${keyName} or External ID): each ${words.noun} may appear once`,
			);
	}
	return { targets, named, unidentified };
}
