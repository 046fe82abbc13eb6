import { checkFilter, FilterError } from '../nodes/shared/filter';
import type { FilterNode } from '../nodes/shared/filter/ast';
import { compileFilter } from '../nodes/shared/filter/evaluate';
import type { ResourceSchema } from '../nodes/shared/schema/fields';

export type RecordPredicate = (record: Record<string, unknown>) => boolean;

/**
 * The `filter` parameter as a predicate (undefined when absent), or the reason it is refused.
 * All parsing and evaluation is the shared filter module's.
 */
export function compileQueryFilter(
	text: string | null,
	schema: ResourceSchema,
): { predicate?: RecordPredicate; externalIds?: string[]; error?: string } {
	if (text === null || text.trim() === '') return {};
	try {
		const node = checkFilter(text, schema);
		return { predicate: compileFilter(node, schema), externalIds: externalIdsOf(node) };
	} catch (error) {
		if (error instanceof FilterError) return { error: error.message };
		throw error;
	}
}

/**
 * The values of a filter that only names External IDs (`externalId eq "a" or externalId eq
 * "b" ...`, as clients look records up), else undefined. A service answers such a filter from an
 * index; the sandbox does too, so that 100,000 look-ups do not each scan every record.
 */
function externalIdsOf(node: FilterNode): string[] | undefined {
	if (node.kind === 'or') {
		const left = externalIdsOf(node.left);
		const right = left && externalIdsOf(node.right);
		return right && [...left!, ...right];
	}
	return node.kind === 'compare' &&
		node.operator === 'eq' &&
		node.attribute.toLowerCase() === 'externalid' &&
		typeof node.value === 'string'
		? [node.value]
		: undefined;
}
