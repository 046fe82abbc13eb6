import type { IDataObject, INode } from 'n8n-workflow';
import { closestMatch } from '../schema/values';
import { SyncRefusal } from './refusal';

/** A column Sync reads that no input item carries. */
export interface AbsentColumn {
	/** The field as the form names it: "Model Name (modelName)". */
	name: string;
	/** What the column is called, or what the mapping reads, for the closest match. */
	soughtAs: string[];
	/** Where the node looked: "the items' modelName", "the mapping {{ $json.model }}". */
	where: string;
}

/** How names are compared for a suggestion: case, spaces and punctuation aside. */
const nameForm = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The input key closest to any of the names sought, if one is close. */
export function closestKey(
	soughtAs: readonly string[],
	keys: readonly string[],
): string | undefined {
	const byForm = new Map<string, string>();
	for (const key of keys) if (!byForm.has(nameForm(key))) byForm.set(nameForm(key), key);
	for (const sought of soughtAs) {
		const same = byForm.get(nameForm(sought));
		if (same !== undefined) return same;
	}
	for (const sought of soughtAs) {
		const close = closestMatch(nameForm(sought), byForm.keys());
		if (close !== undefined) return byForm.get(close);
	}
	return undefined;
}

/** The keys the items have, first seen first, at most `limit` of them. */
export function itemKeys(items: Iterable<object>, limit = 40): string[] {
	const keys = new Set<string>();
	for (const item of items) {
		for (const key of Object.keys(item)) {
			keys.add(key);
			if (keys.size >= limit) return [...keys];
		}
	}
	return [...keys];
}

/**
 * A column that no item carries is a renamed or missing column, not a source without values:
 * syncing it would clear the field on every record. The run is refused before anything is
 * read or written, naming each such field, the keys the items do have and the closest one.
 */
export function refuseAbsentColumns(
	node: INode,
	absent: readonly AbsentColumn[],
	keys: readonly string[],
	remedy: string,
): void {
	if (!absent.length) return;
	const lines = absent.map((column) => {
		const close = closestKey(column.soughtAs, keys);
		return `${column.name}: ${column.where} is on no item${close === undefined ? '' : ` (did you mean "${close}"?)`}`;
	});
	throw new SyncRefusal(
		node,
		'columns',
		`Sync refused: no input item has ${absent.map((column) => column.name).join(', ')}`,
		[
			'Nothing was written. A column the sync reads is missing from every item: syncing it would clear the field everywhere.',
			...lines,
			`The items have: ${keys.length ? keys.join(', ') : 'no fields'}.`,
			remedy,
		].join('\n'),
	);
}

/** The input keys a mapping reads: `{{ $json.model }}`, `{{ 'MDM-' + $json["Device ID"] }}`. */
export function mappingReads(mapping: string): string[] {
	const reads: string[] = [];
	for (const match of mapping.matchAll(/\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(["'])(.*?)\2\s*\])/g))
		reads.push(match[1] ?? match[3]);
	return reads;
}

/**
 * Mapped fields whose mapping reads a key no input item has, even inside a larger expression
 * (`'MDM-' + $json['Device ID']` gives every row the key "MDM-undefined"): each is a column the
 * export lost or renamed, named with the mapping.
 */
export function unreadColumns(
	mapped: Readonly<Record<string, string>>,
	inputs: readonly IDataObject[],
	name: (field: string) => string,
): AbsentColumn[] {
	const carried = new Set<string>();
	for (const json of inputs) for (const key of Object.keys(json)) carried.add(key);
	return Object.entries(mapped).flatMap(([field, mapping]) => {
		const missing = mappingReads(mapping).filter((key) => !carried.has(key));
		return missing.length
			? [
					{
						name: name(field),
						soughtAs: missing,
						where: `its mapping ${mapping} reads ${missing.map((key) => JSON.stringify(key)).join(', ')}, which`,
					},
				]
			: [];
	});
}

/** The absent columns and the unread ones, each field once (absent says it first). */
export function withUnread(
	absent: readonly AbsentColumn[],
	unread: readonly AbsentColumn[] | undefined,
): AbsentColumn[] {
	const named = new Set(absent.map((column) => column.name));
	return [...absent, ...(unread ?? []).filter((column) => !named.has(column.name))];
}
