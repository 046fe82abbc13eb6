import type { ComparisonOperator, FilterNode, Literal } from './ast';
import {
	comparedAttribute,
	qualifiedInExtension,
	resolveAttribute,
	splitAttribute,
	type ResolvedAttribute,
} from './attributes';
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
	return reviewFilter(node, schema).issues;
}

/**
 * Checks a parsed filter against a resource schema: its problems, and (for a schema whose
 * attributes are open, SCIM users) notices of the attributes it names that the schema does not
 * know, which are sent as written for the server to judge.
 */
export function reviewFilter(
	node: FilterNode,
	schema: FieldSet,
): { issues: FilterIssue[]; notices: FilterIssue[] } {
	const review: Review = { issues: [], notices: [], schema };
	visit(node, schema.fields, review, schema.coreSchema);
	return { issues: review.issues, notices: review.notices };
}

interface Review {
	issues: FilterIssue[];
	notices: FilterIssue[];
	schema: FieldSet;
}

/** The attribute's field, or undefined with an issue (or, in an open schema, a notice) recorded. */
function resolve(
	fields: FieldSet['fields'],
	node: { attribute: string; position: number },
	review: Review,
	coreSchema: string | undefined,
	within: string | undefined,
): ResolvedAttribute | undefined {
	const resolved = resolveAttribute(fields, node.attribute, coreSchema);
	if (typeof resolved !== 'string') return resolved;
	const column = node.position + 1;
	if (!review.schema.openAttributes) {
		review.issues.push({ column, message: resolved });
		return undefined;
	}
	const qualified = qualifiedInExtension(fields, node.attribute);
	// a plain name the node does not know is most likely a typo: say what it may have meant, as a
	// refusal would (another schema's URI is the server's to know)
	const suggestion =
		splitAttribute(node.attribute)?.uri === undefined
			? (/ \(did you mean [^)]*\)$/.exec(resolved)?.[0] ?? '')
			: '';
	review.notices.push({
		column,
		message: qualified
			? `'${node.attribute}' is an attribute of a schema extension, which RFC 7644 names in full: ${qualified}; sent as written, the server decides`
			: `'${node.attribute}' is not an attribute the node knows of ${within ? `'${within}'` : `the ${review.schema.noun}`}${suggestion}; sent as written, the server decides (it may refuse it or match nothing)`,
	});
	return undefined;
}

function visit(
	node: FilterNode,
	fields: FieldSet['fields'],
	review: Review,
	coreSchema?: string,
	/** The list attribute whose `[...]` this is. */
	within?: string,
): void {
	const { issues } = review;
	switch (node.kind) {
		case 'and':
		case 'or':
			visit(node.left, fields, review, coreSchema, within);
			visit(node.right, fields, review, coreSchema, within);
			return;
		case 'not':
			visit(node.operand, fields, review, coreSchema, within);
			return;
		case 'present':
			resolve(fields, node, review, coreSchema, within);
			return;
		case 'valuePath': {
			const resolved = resolve(fields, node, review, coreSchema, within);
			if (!resolved) {
				// an attribute the schema does not know: its elements' attributes are not known either
				if (review.schema.openAttributes) visitOpen(node.filter, review);
				return;
			}
			if (resolved.kind !== 'field' || resolved.field.type !== 'list') {
				issues.push({
					column: node.position + 1,
					message: `'${node.attribute}' is not a list of objects; '[...]' applies to lists such as lineItems`,
				});
				return;
			}
			visit(node.filter, resolved.field.fields, review, undefined, node.attribute);
			return;
		}
		case 'compare': {
			const found = resolve(fields, node, review, coreSchema, within);
			if (!found || found.kind === 'custom') return;
			const resolved = comparedAttribute(found);
			if (resolved.kind === 'custom') return;
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

/** Inside `[...]` of an attribute the schema does not know: only the structure is checked. */
function visitOpen(node: FilterNode, review: Review): void {
	switch (node.kind) {
		case 'and':
		case 'or':
			visitOpen(node.left, review);
			visitOpen(node.right, review);
			return;
		case 'not':
			visitOpen(node.operand, review);
			return;
		case 'valuePath':
			visitOpen(node.filter, review);
			return;
		case 'compare':
			if (node.value === null && !EQUALITY_OPERATORS.includes(node.operator)) {
				review.issues.push({
					column: node.position + 1,
					message: `null can only be compared with eq or ne (found '${node.operator} null')`,
				});
			}
	}
}
