import type { ComparisonOperator, FilterNode, Literal } from './ast';
import { resolveAttribute } from './attributes';
import { validateFilter } from './validate';
import type { Field, Fields, ResourceSchema } from '../schema/fields';
import { describeValue, isFiniteNumber, isPlainObject } from '../schema/values';

export type BuilderOperator = ComparisonOperator | 'pr';

/** One row of the node UI's filter builder. `negate` wraps it in `not (...)`. */
export interface FilterCondition {
	field: string;
	operator: BuilderOperator;
	value?: unknown;
	negate?: boolean;
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

	constructor(condition: number, field: string, reason: string) {
		super(`Filter condition ${condition} (${field}): ${reason}`);
		this.name = 'FilterConditionError';
		this.condition = condition;
	}
}

/**
 * Builds a filter tree from builder rows; print it with `printFilter`. Values are coerced to the
 * attribute's type and kept as literals, so no value can change the expression's structure.
 * Returns undefined when there are no conditions.
 */
export function buildFilter(group: FilterGroup, schema: ResourceSchema): FilterNode | undefined {
	const { fields } = schema;
	const nodes = group.conditions.map((condition, index) => {
		const number = index + 1;
		const node = 'within' in condition ? buildList(condition, fields, number) : buildCondition(condition, fields, number);
		const issues = validateFilter(node, schema);
		if (issues.length) throw new FilterConditionError(number, condition.field, issues[0].message);
		return condition.negate ? ({ kind: 'not', operand: node, position: 0 } as const) : node;
	});
	return combine(nodes, group.match === 'any' ? 'or' : 'and');
}

function combine(nodes: FilterNode[], kind: 'and' | 'or'): FilterNode | undefined {
	if (!nodes.length) return undefined;
	return nodes.reduce((left, right) => ({ kind, left, right, position: 0 }));
}

function buildList(condition: FilterListCondition, fields: Fields, number: number): FilterNode {
	const resolved = attempt(() => resolveAttribute(fields, condition.field), number, condition.field);
	if (resolved.kind !== 'field' || resolved.field.type !== 'list') {
		throw new FilterConditionError(number, condition.field, 'is not a list of objects');
	}
	const items = { noun: resolved.field.itemName.toLowerCase(), fields: resolved.field.fields };
	let inner: FilterNode | undefined;
	try {
		inner = buildFilter(condition.within, items);
	} catch (error) {
		if (!(error instanceof FilterConditionError)) throw error;
		const reason = error.message.replace(/^Filter condition/, `${resolved.field.itemName.toLowerCase()} condition`);
		throw new FilterConditionError(number, condition.field, reason);
	}
	if (!inner) throw new FilterConditionError(number, condition.field, `has no ${resolved.field.itemName.toLowerCase()} conditions`);
	return { kind: 'valuePath', attribute: condition.field, filter: inner, position: 0 };
}

function buildCondition(condition: FilterCondition, fields: Fields, number: number): FilterNode {
	const { field: attribute, operator } = condition;
	if (operator === 'pr') return { kind: 'present', attribute, position: 0 };
	const resolved = attempt(() => resolveAttribute(fields, attribute), number, attribute);
	const value = resolved.kind === 'custom' ? openLiteral(condition.value) : coerce(resolved.field, condition.value);
	if (value === undefined) {
		throw new FilterConditionError(
			number,
			attribute,
			condition.value === undefined || condition.value === null || condition.value === ''
				? `needs a value for '${operator}' (to find records without a value, use "is empty")`
				: `expected ${describeType(resolved.kind === 'custom' ? undefined : resolved.field)}, got ${describeValue(condition.value)}`,
		);
	}
	return { kind: 'compare', attribute, operator, value, position: 0 };
}

function attempt<T>(run: () => T, number: number, field: string): T {
	try {
		return run();
	} catch (error) {
		if (error instanceof FilterConditionError) throw error;
		throw new FilterConditionError(number, field, error instanceof Error ? error.message : String(error));
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
			return 'a text, number or true/false';
	}
}

/** A date-like object (luxon DateTime, JS Date) as an ISO string. */
function isoFromObject(value: unknown): string | undefined {
	if (!isPlainObject(value) && !(typeof value === 'object' && value !== null)) return undefined;
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
