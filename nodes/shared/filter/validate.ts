import type { ComparisonOperator, FilterNode, Literal } from './ast';
import { resolveAttribute, type ResolvedAttribute } from './attributes';
import { printLiteral } from './printer';
import type { Field, FieldSet } from '../schema/fields';
import { didYouMean, isCalendarDate, isDateTime } from '../schema/values';

/** One problem in a filter; `column` is 1-based. */
export interface FilterIssue {
	column: number;
	message: string;
}

const TEXT_OPERATORS: readonly ComparisonOperator[] = [
	'eq',
	'ne',
	'co',
	'sw',
	'ew',
	'gt',
	'ge',
	'lt',
	'le',
];
const ORDER_OPERATORS: readonly ComparisonOperator[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'];
const EQUALITY_OPERATORS: readonly ComparisonOperator[] = ['eq', 'ne'];

/** The kinds of attribute a filter compares; the filter builder offers its operators by kind too. */
export type AttributeKind = 'text' | 'enum' | 'number' | 'date' | 'boolean';

/** A field's kind as a filter attribute; objects, lists and custom-field maps have none. */
export function attributeKind(field: Field): AttributeKind | undefined {
	switch (field.type) {
		case 'string':
		case 'email':
		case 'url':
		case 'currency':
		case 'stringList':
			return 'text';
		case 'enum':
			return 'enum';
		case 'number':
			return 'number';
		case 'date':
		case 'dateTime':
			return 'date';
		case 'boolean':
			return 'boolean';
		default:
			return undefined;
	}
}

/** The operators the language allows per kind of attribute (the builder offers a subset). */
const OPERATORS_BY_KIND: Record<AttributeKind, readonly ComparisonOperator[]> = {
	text: TEXT_OPERATORS,
	enum: ['eq', 'ne', 'co', 'sw', 'ew'],
	number: ORDER_OPERATORS,
	date: ORDER_OPERATORS,
	boolean: EQUALITY_OPERATORS,
};

/** What kind of attribute this is, in words, and which operators fit it. */
function describeField(
	attribute: string,
	field: Field,
): { noun: string; operators: readonly ComparisonOperator[] } {
	const kind = attributeKind(field);
	const nouns: Record<AttributeKind, string> = {
		text: 'a text attribute',
		enum: `an attribute with the values ${field.type === 'enum' ? field.values.join(', ') : ''}`,
		number: 'a number attribute',
		boolean: 'a true/false attribute',
		date: field.type === 'dateTime' ? 'a date-time attribute' : 'a date attribute',
	};
	if (kind) return { noun: nouns[kind], operators: OPERATORS_BY_KIND[kind] };
	switch (field.type) {
		case 'object':
			return { noun: 'an object (compare one of its sub-attributes, or use pr)', operators: [] };
		case 'list':
			return {
				noun: `a list of ${field.itemName.toLowerCase()} objects (use ${attribute}[<condition>] or pr)`,
				operators: [],
			};
		default:
			return {
				noun: `a map of custom fields (compare one of them as ${attribute}.<name>, or use pr)`,
				operators: [],
			};
	}
}

function checkValue(
	attribute: string,
	field: Field,
	operator: ComparisonOperator,
	value: Literal,
): string | undefined {
	if (value === null) return undefined;
	const shown = printLiteral(value);
	switch (field.type) {
		case 'number':
			return typeof value === 'number'
				? undefined
				: `'${attribute}' is a number attribute: expected a number after '${operator}', found ${shown}`;
		case 'boolean':
			return typeof value === 'boolean'
				? undefined
				: `'${attribute}' is a true/false attribute: expected true or false after '${operator}', found ${shown}`;
		case 'date':
		case 'dateTime': {
			if (typeof value !== 'string') {
				return `'${attribute}' is a ${field.type === 'date' ? 'date' : 'date-time'}: expected a quoted date like "2024-05-01" or date-time like "2024-05-01T10:30:00Z", found ${shown}`;
			}
			if (isCalendarDate(value) || isDateTime(value)) return undefined;
			return /^\d{4}-\d{2}-\d{2}/.test(value)
				? `${shown} is not a real date or date-time (for '${attribute}')`
				: `'${attribute}' is a ${field.type === 'date' ? 'date' : 'date-time'}: expected a date like "2024-05-01" or a date-time like "2024-05-01T10:30:00Z", found ${shown}`;
		}
		case 'enum':
			if (typeof value !== 'string')
				return `'${attribute}' expects one of ${field.values.join(', ')} in quotes, found ${shown}`;
			if (operator !== 'eq' && operator !== 'ne') return undefined;
			return field.values.some((allowed) => allowed.toLowerCase() === value.toLowerCase())
				? undefined
				: `${shown} is not a value of '${attribute}' (expected one of ${field.values.join(', ')})${didYouMean(value, field.values)}`;
		default:
			return typeof value === 'string'
				? undefined
				: `'${attribute}' is a text attribute: expected a quoted string after '${operator}', found ${shown}`;
	}
}

/** Checks a parsed filter against a resource schema; returns every problem (empty when valid). */
export function validateFilter(node: FilterNode, schema: FieldSet): FilterIssue[] {
	const issues: FilterIssue[] = [];
	visit(node, schema.fields, issues);
	return issues;
}

function resolve(
	fields: FieldSet['fields'],
	node: { attribute: string; position: number },
	issues: FilterIssue[],
): ResolvedAttribute | undefined {
	const resolved = resolveAttribute(fields, node.attribute);
	if (typeof resolved !== 'string') return resolved;
	issues.push({ column: node.position + 1, message: resolved });
	return undefined;
}

function visit(node: FilterNode, fields: FieldSet['fields'], issues: FilterIssue[]): void {
	switch (node.kind) {
		case 'and':
		case 'or':
			visit(node.left, fields, issues);
			visit(node.right, fields, issues);
			return;
		case 'not':
			visit(node.operand, fields, issues);
			return;
		case 'present':
			resolve(fields, node, issues);
			return;
		case 'valuePath': {
			const resolved = resolve(fields, node, issues);
			if (!resolved) return;
			if (resolved.kind !== 'field' || resolved.field.type !== 'list') {
				issues.push({
					column: node.position + 1,
					message: `'${node.attribute}' is not a list of objects; '[...]' applies to lists such as lineItems`,
				});
				return;
			}
			visit(node.filter, resolved.field.fields, issues);
			return;
		}
		case 'compare': {
			const resolved = resolve(fields, node, issues);
			if (!resolved || resolved.kind === 'custom') return;
			const { noun, operators } = describeField(node.attribute, resolved.field);
			const column = node.position + 1;
			if (node.value === null && !EQUALITY_OPERATORS.includes(node.operator)) {
				issues.push({
					column,
					message: `null can only be compared with eq or ne (found '${node.operator} null')`,
				});
			} else if (!operators.includes(node.operator)) {
				const fitting = operators.length ? `; use ${operators.join(', ')} or pr` : '';
				issues.push({
					column,
					message: `operator '${node.operator}' does not apply to '${node.attribute}', ${noun}${fitting}`,
				});
			} else {
				const problem = checkValue(node.attribute, resolved.field, node.operator, node.value);
				if (problem) issues.push({ column, message: problem });
			}
		}
	}
}
