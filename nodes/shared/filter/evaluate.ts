import type { ComparisonOperator, FilterNode, Literal } from './ast';
import {
	comparedAttribute,
	resolveAttribute as resolveOrExplain,
	type ResolvedAttribute,
} from './attributes';
import type { Field, Fields, FieldSet } from '../schema/fields';
import { hasValue, isPlainObject, toInstant } from '../schema/values';

type Predicate = (record: Record<string, unknown>) => boolean;
type Test = (value: unknown) => boolean;

/**
 * Compiles a validated filter into a predicate over stored records (the sandbox's evaluator).
 * Strings compare case-insensitively, dates and date-times as instants (a date means midnight
 * UTC), numbers as numbers; a comparison with an attribute that has no value is false for every
 * operator, and `attr eq null` means the attribute has no value.
 */
export function compileFilter(node: FilterNode, schema: FieldSet): Predicate {
	return compileNode(node, schema.fields, schema.coreSchema);
}

/** Filters are validated before they are compiled; an unknown attribute here is a bug. */
function resolveAttribute(
	fields: Fields,
	attribute: string,
	coreSchema?: string,
): ResolvedAttribute {
	const resolved = resolveOrExplain(fields, attribute, coreSchema);
	if (typeof resolved === 'string')
		throw new Error(`cannot evaluate an invalid filter: ${resolved}`);
	return resolved;
}

/** `coreSchema`: the URI an attribute may be qualified with at this level (not inside `[...]`). */
function compileNode(node: FilterNode, fields: Fields, coreSchema?: string): Predicate {
	switch (node.kind) {
		case 'and': {
			const [left, right] = [
				compileNode(node.left, fields, coreSchema),
				compileNode(node.right, fields, coreSchema),
			];
			return (record) => left(record) && right(record);
		}
		case 'or': {
			const [left, right] = [
				compileNode(node.left, fields, coreSchema),
				compileNode(node.right, fields, coreSchema),
			];
			return (record) => left(record) || right(record);
		}
		case 'not': {
			const operand = compileNode(node.operand, fields, coreSchema);
			return (record) => !operand(record);
		}
		case 'present': {
			const read = compileReader(resolveAttribute(fields, node.attribute, coreSchema));
			return (record) => hasValue(read(record));
		}
		case 'valuePath': {
			const resolved = resolveAttribute(fields, node.attribute, coreSchema);
			if (resolved.kind !== 'field' || resolved.field.type !== 'list') {
				throw new Error(`'${node.attribute}' is not a list of objects`);
			}
			const read = compileReader(resolved);
			const inner = compileNode(node.filter, resolved.field.fields);
			return (record) => {
				const elements = read(record);
				return (
					Array.isArray(elements) &&
					elements.some((element) => isPlainObject(element) && inner(element))
				);
			};
		}
		case 'compare': {
			const resolved = comparedAttribute(resolveAttribute(fields, node.attribute, coreSchema));
			const read = compileReader(resolved);
			if (node.value === null) {
				// eq null: the attribute has no value; ne null: it has one
				return node.operator === 'eq'
					? (record) => !hasValue(read(record))
					: (record) => hasValue(read(record));
			}
			const test =
				resolved.kind === 'custom'
					? openTest(node.operator, node.value)
					: typedTest(resolved.field, node.operator, node.value);
			const absentMeans =
				resolved.kind === 'field' && resolved.field.type === 'boolean'
					? resolved.field.absentMeans
					: undefined;
			return (record) => {
				const value = read(record);
				return anyMatches(value === undefined ? absentMeans : value, test);
			};
		}
	}
}

/** True when the value, or one element of it, passes the test; missing values never do. */
function anyMatches(value: unknown, test: Test): boolean {
	if (value === undefined || value === null) return false;
	if (Array.isArray(value))
		return value.some((element) => element !== undefined && element !== null && test(element));
	return test(value);
}

/** Reads an attribute from a record: walks objects, fans out over lists (any element). */
function compileReader(resolved: ResolvedAttribute): (record: Record<string, unknown>) => unknown {
	if (resolved.kind === 'custom') {
		const name = resolved.name;
		return (record) => customFieldValue(record, name);
	}
	const keys = resolved.keys;
	if (keys.length === 1) {
		const [key] = keys;
		return (record) => record[key];
	}
	return (record) => {
		let value: unknown = record;
		for (const key of keys) value = step(value, key);
		return value;
	};
}

function step(value: unknown, key: string): unknown {
	if (Array.isArray(value)) {
		const values = value
			.flatMap((element) => (isPlainObject(element) ? [element[key]] : []))
			.flat();
		return values.length ? values : undefined;
	}
	return isPlainObject(value) ? value[key] : undefined;
}

/** The value of a custom field, by name, whichever map and wire form it was stored in. */
export function customFieldValue(record: Record<string, unknown>, name: string): unknown {
	for (const mapName of ['customFieldValues', 'customFields']) {
		const map = record[mapName];
		if (!isPlainObject(map)) continue;
		let value = map[name];
		if (value === undefined) {
			const lower = name.toLowerCase();
			const key = Object.keys(map).find((candidate) => candidate.toLowerCase() === lower);
			value = key === undefined ? undefined : map[key];
		}
		if (value !== undefined) return unwrapCustomValue(value);
	}
	return undefined;
}

function unwrapCustomValue(value: unknown): unknown {
	if (!isPlainObject(value)) return value;
	if ('numberValue' in value) return value.numberValue;
	if ('textValue' in value) return value.textValue;
	if ('optionValue' in value) return value.optionValue;
	if ('currencyValue' in value)
		return isPlainObject(value.currencyValue) ? value.currencyValue.value : undefined;
	if ('linkValue' in value)
		return isPlainObject(value.linkValue) ? value.linkValue.href : undefined;
	if ('value' in value) return value.value;
	if ('href' in value) return value.href;
	return value;
}

function order(operator: ComparisonOperator, difference: number): boolean {
	switch (operator) {
		case 'eq':
			return difference === 0;
		case 'ne':
			return difference !== 0;
		case 'gt':
			return difference > 0;
		case 'ge':
			return difference >= 0;
		case 'lt':
			return difference < 0;
		case 'le':
			return difference <= 0;
		default:
			return false;
	}
}

function textTest(operator: ComparisonOperator, literal: string): Test {
	const wanted = literal.toLowerCase();
	switch (operator) {
		case 'co':
			return (value) => typeof value === 'string' && value.toLowerCase().includes(wanted);
		case 'sw':
			return (value) => typeof value === 'string' && value.toLowerCase().startsWith(wanted);
		case 'ew':
			return (value) => typeof value === 'string' && value.toLowerCase().endsWith(wanted);
		default:
			return (value) => {
				if (typeof value !== 'string') return false;
				const lower = value.toLowerCase();
				return order(operator, lower === wanted ? 0 : lower > wanted ? 1 : -1);
			};
	}
}

function numberTest(operator: ComparisonOperator, literal: number): Test {
	return (value) => typeof value === 'number' && order(operator, value - literal);
}

function instantTest(operator: ComparisonOperator, literal: string): Test {
	const wanted = toInstant(literal);
	return (value) => {
		if (typeof value !== 'string') return false;
		const instant = Date.parse(value);
		return !Number.isNaN(instant) && order(operator, instant - wanted);
	};
}

function booleanTest(operator: ComparisonOperator, literal: boolean): Test {
	return operator === 'ne'
		? (value) => typeof value === 'boolean' && value !== literal
		: (value) => value === literal;
}

function typedTest(
	field: Field,
	operator: ComparisonOperator,
	literal: Exclude<Literal, null>,
): Test {
	switch (field.type) {
		case 'number':
			return typeof literal === 'number' ? numberTest(operator, literal) : () => false;
		case 'boolean':
			return typeof literal === 'boolean' ? booleanTest(operator, literal) : () => false;
		case 'date':
		case 'dateTime':
			return typeof literal === 'string' ? instantTest(operator, literal) : () => false;
		default:
			return typeof literal === 'string' ? textTest(operator, literal) : () => false;
	}
}

const DATE_LIKE = /^\d{4}-\d{2}-\d{2}/;

/** Custom fields have no declared type: the literal's type decides how to compare. */
function openTest(operator: ComparisonOperator, literal: Exclude<Literal, null>): Test {
	if (typeof literal === 'number') return numberTest(operator, literal);
	if (typeof literal === 'boolean') return booleanTest(operator, literal);
	const text = textTest(operator, literal);
	if (!DATE_LIKE.test(literal) || Number.isNaN(toInstant(literal))) {
		return (value) => text(typeof value === 'number' ? String(value) : value);
	}
	const instant = instantTest(operator, literal);
	return (value) =>
		typeof value === 'string' &&
		DATE_LIKE.test(value) &&
		['eq', 'ne', 'gt', 'ge', 'lt', 'le'].includes(operator)
			? instant(value)
			: text(value);
}
