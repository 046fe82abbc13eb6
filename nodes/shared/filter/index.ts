/**
 * The filter language: the only place that parses, validates, prints, builds or evaluates filters.
 * Evaluating is the sandbox's part (`./evaluate`, imported directly): the nodes never evaluate a
 * filter, so it is left out of the published package (tsconfig.json).
 */
export {
	all,
	any,
	compare,
	COMPARISON_OPERATORS,
	not,
	present,
	type ComparisonOperator,
	type FilterNode,
	type Literal,
} from './ast';
export {
	buildFilter,
	FilterConditionError,
	type BuilderOperator,
	type FilterCondition,
	type FilterGroup,
	type FilterListCondition,
} from './build';
export { checkFilter, inspectFilter } from './check';
export { FilterError } from './errors';
export { parseFilter } from './parser';
export { printFilter, printLiteral } from './printer';
export { validateFilter, type FilterIssue } from './validate';
