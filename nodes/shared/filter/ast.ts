/** The filter language's syntax tree (SCIM-style filters, service-behaviour.md §6). */

export const COMPARISON_OPERATORS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

/** A value as written in a filter: a (decoded) string, a finite number, true, false or null. */
export type Literal = string | number | boolean | null;

/** `position` is the 0-based offset in the source text of the node's first character. */
export type FilterNode =
	| {
			kind: 'compare';
			attribute: string;
			operator: ComparisonOperator;
			value: Literal;
			position: number;
	  }
	| { kind: 'present'; attribute: string; position: number }
	| { kind: 'and'; left: FilterNode; right: FilterNode; position: number }
	| { kind: 'or'; left: FilterNode; right: FilterNode; position: number }
	| { kind: 'not'; operand: FilterNode; position: number }
	/** `attribute[filter]`: true when at least one element of the array matches `filter`. */
	| { kind: 'valuePath'; attribute: string; filter: FilterNode; position: number };

/** Tree constructors for code that combines filters (positions are 0: the tree has no source). */
export const compare = (
	attribute: string,
	operator: ComparisonOperator,
	value: Literal,
): FilterNode => ({
	kind: 'compare',
	attribute,
	operator,
	value,
	position: 0,
});

export const present = (attribute: string): FilterNode => ({
	kind: 'present',
	attribute,
	position: 0,
});

export const not = (operand: FilterNode): FilterNode => ({ kind: 'not', operand, position: 0 });

/** `and`/`or` over any number of operands, left-associative; undefined operands are skipped. */
export function all(...operands: Array<FilterNode | undefined>): FilterNode | undefined {
	return combine('and', operands);
}

export function any(...operands: Array<FilterNode | undefined>): FilterNode | undefined {
	return combine('or', operands);
}

function combine(
	kind: 'and' | 'or',
	operands: Array<FilterNode | undefined>,
): FilterNode | undefined {
	const present = operands.filter((operand): operand is FilterNode => operand !== undefined);
	if (!present.length) return undefined;
	return present.reduce((left, right) => ({ kind, left, right, position: 0 }));
}
