import { DateTime } from 'luxon';
import {
	all,
	any,
	compare,
	COMPARISON_OPERATORS,
	not,
	type ComparisonOperator,
	type FilterNode,
	type Literal,
} from './ast';
import { isAttributePath, resolveAttribute } from './attributes';
import { validateFilter } from './validate';
import type { Field, Fields, FieldSet } from '../schema/fields';
import { describeValue, isFiniteNumber } from '../schema/values';

export type BuilderOperator = ComparisonOperator | 'pr';

/** One row of the node UI's filter builder. `negate` wraps it in `not (...)`. */
export interface FilterCondition {
	field: string;
	operator: BuilderOperator;
	value?: unknown;
	negate?: boolean;
	/**
	 * Where a date alone, given for a date-time field, is a day (default UTC): the condition then
	 * holds for the whole day (Is On or Before includes it, Is After excludes it).
	 */
	timezone?: string;
}

/** A condition on the elements of a list field, e.g. `lineItems[...]`. */
export interface FilterListCondition {
	field: string;
	within: FilterGroup;
	negate?: boolean;
}

export interface FilterGroup {
	match: 'all' | 'any';
	conditions: ReadonlyArray<FilterCondition | FilterListCondition>;
}

/** A builder row that cannot become a filter; `condition` is 1-based. */
export class FilterConditionError extends Error {
	readonly condition: number;

	constructor(condition: number, field: string, reason: string, label = 'Filter condition') {
		super(`${label} ${condition} (${field}): ${reason}`);
		this.name = 'FilterConditionError';
		this.condition = condition;
	}
}

/**
 * Builds a filter tree from builder rows; print it with `printFilter`. Values are coerced to the
 * attribute's type and kept as literals, so no value can change the expression's structure.
 * Returns undefined when there are no conditions.
 */
export function buildFilter(group: FilterGroup, schema: FieldSet): FilterNode | undefined {
	return buildGroup(group, schema, 'Filter condition');
}

/** `label` names the rows in errors: "Filter condition 2 (lineItems): line item condition 1 (...)". */
function buildGroup(group: FilterGroup, schema: FieldSet, label: string): FilterNode | undefined {
	const nodes = group.conditions.map((condition, index) => {
		const fail = (reason: string) =>
			new FilterConditionError(index + 1, String(condition.field), reason, label);
		// a field or operator may come from an expression (or an AI agent): only its value may vary
		if (typeof condition.field !== 'string' || !isAttributePath(condition.field)) {
			throw fail(`${JSON.stringify(condition.field)} is not a field name`);
		}
		const node =
			'within' in condition
				? buildList(condition, schema.fields, fail, `${label} ${index + 1} (${condition.field}):`)
				: buildCondition(condition, schema.fields, fail);
		const [issue] = validateFilter(node, schema);
		if (issue) throw fail(issue.message);
		return condition.negate ? not(node) : node;
	});
	return group.match === 'any' ? any(...nodes) : all(...nodes);
}

type Fail = (reason: string) => FilterConditionError;

function buildList(
	condition: FilterListCondition,
	fields: Fields,
	fail: Fail,
	outerLabel: string,
): FilterNode {
	const resolved = resolveAttribute(fields, condition.field);
	if (typeof resolved === 'string') throw fail(resolved);
	if (resolved.kind !== 'field' || resolved.field.type !== 'list')
		throw fail('is not a list of objects');
	const itemName = resolved.field.itemName.toLowerCase();
	const items = { noun: itemName, fields: resolved.field.fields };
	const inner = buildGroup(condition.within, items, `${outerLabel} ${itemName} condition`);
	if (!inner) throw fail(`has no ${itemName} conditions`);
	return { kind: 'valuePath', attribute: condition.field, filter: inner, position: 0 };
}

const BUILDER_OPERATORS: readonly string[] = [...COMPARISON_OPERATORS, 'pr'];

function buildCondition(condition: FilterCondition, fields: Fields, fail: Fail): FilterNode {
	const attribute = condition.field;
	const operator = String(condition.operator).toLowerCase() as BuilderOperator;
	if (!BUILDER_OPERATORS.includes(operator)) {
		throw fail(
			`${JSON.stringify(condition.operator)} is not an operator (expected one of ${BUILDER_OPERATORS.join(', ')})`,
		);
	}
	if (operator === 'pr') return { kind: 'present', attribute, position: 0 };
	const resolved = resolveAttribute(fields, attribute);
	if (typeof resolved === 'string') throw fail(resolved);
	const value =
		resolved.kind === 'custom'
			? openLiteral(condition.value)
			: coerce(resolved.field, condition.value);
	if (value === undefined) {
		throw fail(
			condition.value === undefined || condition.value === null || condition.value === ''
				? `needs a value for '${operator}' (to find records without a value, use "is empty")`
				: `expected ${describeType(resolved.kind === 'custom' ? undefined : resolved.field)}, got ${describeValue(condition.value)}`,
		);
	}
	if (resolved.kind === 'field' && resolved.field.type === 'dateTime' && isDay(value)) {
		const day = dayBounds(value, condition.timezone ?? 'UTC');
		if (!day) throw fail(`expected a date or date-time, got ${describeValue(condition.value)}`);
		return onDay(attribute, operator, day);
	}
	return { kind: 'compare', attribute, operator, value, position: 0 };
}

const isDay = (value: unknown): value is string =>
	typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** When a calendar day starts and when the next one does, in a time zone, as UTC instants. */
function dayBounds(day: string, timezone: string): { start: string; end: string } | undefined {
	const start = DateTime.fromISO(day, { zone: timezone });
	if (!start.isValid) return undefined;
	const utc = (instant: DateTime) => instant.toUTC().toISO({ suppressMilliseconds: true })!;
	return { start: utc(start), end: utc(start.plus({ days: 1 })) };
}

/** A comparison with a whole day: [start, end). */
function onDay(
	attribute: string,
	operator: ComparisonOperator,
	{ start, end }: { start: string; end: string },
): FilterNode {
	const within = all(compare(attribute, 'ge', start), compare(attribute, 'lt', end))!;
	switch (operator) {
		case 'gt':
			return compare(attribute, 'ge', end);
		case 'ge':
			return compare(attribute, 'ge', start);
		case 'lt':
			return compare(attribute, 'lt', start);
		case 'le':
			return compare(attribute, 'lt', end);
		case 'eq':
			return within;
		case 'ne':
			return not(within);
		default:
			// not an operator for dates: validation names it
			return compare(attribute, operator, start);
	}
}

function describeType(field: Field | undefined): string {
	switch (field?.type) {
		case 'number':
			return 'a number';
		case 'boolean':
			return 'true or false';
		case 'date':
		case 'dateTime':
			return 'a date or date-time';
		default:
			return 'text, a number or true/false';
	}
}

/** A date-like object (luxon DateTime, JS Date) as an ISO string. */
function isoFromObject(value: unknown): string | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const candidate = value as { toISO?: () => string; toISOString?: () => string };
	if (typeof candidate.toISO === 'function') return candidate.toISO();
	if (typeof candidate.toISOString === 'function') return candidate.toISOString();
	return undefined;
}

/** The builder value as a literal of the field's type, or undefined when it cannot be one. */
function coerce(field: Field, value: unknown): Exclude<Literal, null> | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	switch (field.type) {
		case 'number': {
			const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
			return isFiniteNumber(number) ? number : undefined;
		}
		case 'boolean':
			if (typeof value === 'boolean') return value;
			if (value === 'true' || value === 'false') return value === 'true';
			return undefined;
		case 'date':
		case 'dateTime':
			return typeof value === 'string' ? value : isoFromObject(value);
		default:
			return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
				? String(value)
				: undefined;
	}
}

function openLiteral(value: unknown): Exclude<Literal, null> | undefined {
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'boolean' || isFiniteNumber(value)) return value;
	return isoFromObject(value);
}
