/**
 * The filter language: the only place that parses, validates, prints, builds or evaluates filters.
 * Evaluating (`./evaluate`, imported directly) is how the sandbox answers a list, and how Sync
 * checks that a record it creates or changes lands in its scope (sync/scope.ts).
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
export { reviewFilter, validateFilter, type FilterIssue } from './validate';
