import type { FilterNode } from './ast';
import { FilterError } from './errors';
import { parseFilter } from './parser';
import { reviewFilter, type FilterIssue } from './validate';
import type { FieldSet } from '../schema/fields';

/**
 * Parses and validates filter text for a resource: its tree, or a FilterError naming the column.
 * Notices (attributes an open schema does not know, sent as written) go to `onNotice`.
 */
export function inspectFilter(
	text: string,
	schema: FieldSet,
	onNotice?: (notice: FilterIssue) => void,
): FilterNode | FilterError {
	let node: FilterNode;
	try {
		node = parseFilter(text);
	} catch (error) {
		return error instanceof FilterError
			? error
			: new FilterError(1, `could not read the filter (${String(error)})`);
	}
	const { issues, notices } = reviewFilter(node, schema);
	const [first, ...others] = issues;
	if (!first) {
		if (onNotice) notices.forEach(onNotice);
		return node;
	}
	const more = others.map((issue) => `; column ${issue.column}: ${issue.message}`).join('');
	return new FilterError(first.column, first.message + more);
}

/** Parses and validates filter text for a resource; throws a FilterError naming the column. */
export function checkFilter(text: string, schema: FieldSet): FilterNode {
	const result = inspectFilter(text, schema);
	if (result instanceof FilterError) throw result;
	return result;
}
