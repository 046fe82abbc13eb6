import type { FilterNode } from './ast';
import { FilterError } from './errors';
import { parseFilter } from './parser';
import { validateFilter } from './validate';
import type { ResourceSchema } from '../schema/fields';

/** Parses and validates filter text for a resource; throws a FilterError naming the column. */
export function checkFilter(text: string, schema: ResourceSchema): FilterNode {
	const node = parseFilter(text);
	const [first, ...others] = validateFilter(node, schema);
	if (first) {
		const more = others.map((issue) => `; column ${issue.column}: ${issue.message}`).join('');
		throw new FilterError(first.column, first.message + more);
	}
	return node;
}
