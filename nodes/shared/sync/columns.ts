import { NodeOperationError, type INode } from 'n8n-workflow';
import { closestMatch } from '../schema/values';

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
	throw new NodeOperationError(
		node,
		`Sync refused: no input item has ${absent.map((column) => column.name).join(', ')}`,
		{
			description: [
				'Nothing was written. A column the sync reads is missing from every item: syncing it would clear the field everywhere.',
				...lines,
				`The items have: ${keys.length ? keys.join(', ') : 'no fields'}.`,
				remedy,
			].join('\n'),
		},
	);
}
