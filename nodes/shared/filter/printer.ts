import { COMPARISON_OPERATORS, type FilterNode, type Literal } from './ast';
import { isAttributePath } from './attributes';

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
			if (!COMPARISON_OPERATORS.includes(node.operator)) {
				throw new RangeError(
					`cannot write the operator ${JSON.stringify(node.operator)} in a filter`,
				);
			}
			return `${printAttribute(node.attribute)} ${node.operator} ${printLiteral(node.value)}`;
		case 'present':
			return `${printAttribute(node.attribute)} pr`;
		case 'valuePath':
			return `${printAttribute(node.attribute)}[${printFilter(node.filter)}]`;
		case 'not':
			return `not (${printFilter(node.operand)})`;
		case 'and':
			// `and` binds tighter than `or`, and both associate to the left
			return `${wrapIf(node.left, node.left.kind === 'or')} and ${wrapIf(node.right, node.right.kind === 'and' || node.right.kind === 'or')}`;
		case 'or':
			return `${printFilter(node.left)} or ${wrapIf(node.right, node.right.kind === 'or')}`;
	}
}

/** The last guard: text that would not read back as one attribute is never printed. */
function printAttribute(attribute: string): string {
	if (!isAttributePath(attribute)) {
		throw new RangeError(`cannot write ${JSON.stringify(attribute)} as an attribute in a filter`);
	}
	return attribute;
}

function wrapIf(node: FilterNode, needed: boolean): string {
	return needed ? `(${printFilter(node)})` : printFilter(node);
}
