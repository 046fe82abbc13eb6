import type { FilterNode, Literal } from './ast';

/** A literal as filter text: strings JSON-quoted and escaped, so no value can change the structure. */
export function printLiteral(value: Literal): string {
	if (typeof value === 'string') return JSON.stringify(value);
	if (typeof value === 'number') {
		if (!Number.isFinite(value)) throw new RangeError(`cannot write ${value} in a filter`);
		return Object.is(value, -0) ? '-0' : String(value);
	}
	return String(value);
}

/**
 * Canonical text of a filter: lower-case keywords and operators, single spaces, and only the
 * parentheses the tree's shape needs, so that parsing the text gives the same tree back.
 */
export function printFilter(node: FilterNode): string {
	switch (node.kind) {
		case 'compare':
			return `${node.attribute} ${node.operator} ${printLiteral(node.value)}`;
		case 'present':
			return `${node.attribute} pr`;
		case 'valuePath':
			return `${node.attribute}[${printFilter(node.filter)}]`;
		case 'not':
			return `not (${printFilter(node.operand)})`;
		case 'and':
			// `and` binds tighter than `or`, and both associate to the left
			return `${wrapIf(node.left, node.left.kind === 'or')} and ${wrapIf(node.right, node.right.kind === 'and' || node.right.kind === 'or')}`;
		case 'or':
			return `${printFilter(node.left)} or ${wrapIf(node.right, node.right.kind === 'or')}`;
	}
}

function wrapIf(node: FilterNode, needed: boolean): string {
	return needed ? `(${printFilter(node)})` : printFilter(node);
}
