import type { IDataObject } from 'n8n-workflow';
import {
	buildFilter,
	FilterError,
	inspectFilter,
	type FilterNode,
	type FilterCondition,
	type FilterGroup,
	type FilterListCondition,
} from './filter';
import {
	CUSTOM_FIELD_PREFIX,
	filterableAttributes,
	valueParameterName,
} from './descriptions/filterAttributes';
import { toServiceDate, toServiceDateTime } from './dates';
import type { CustomFieldType } from './schema/asset';
import type { Fields, FieldSet, ResourceSchema } from './schema/fields';
import { isPlainObject, plainNumber } from './schema/values';

/** A filter the user got wrong; `parameter` names the UI field to fix. */
export class FilterInputError extends Error {
	constructor(
		readonly parameter: string,
		message: string,
	) {
		super(message);
		this.name = 'FilterInputError';
	}
}

export interface FilterInputOptions {
	/** Reads a node parameter (for the current item). */
	getParameter: (name: string, fallback: unknown) => unknown;
	timezone: string;
	/** The list field whose condition group the UI shows (contracts' line items). */
	listField?: string;
	/** Types of the service's custom fields by lower-case name; asked only when a row uses one. */
	customFieldTypes?: () => Promise<Map<string, CustomFieldType>>;
	/**
	 * What a Filter Expression is checked against, when it is not the builder's schema (SCIM users:
	 * every attribute RFC 7643 defines, and others with a notice); the builder keeps its list.
	 */
	expressionSchema?: FieldSet;
	/** Told each notice of a Filter Expression (an attribute sent as written), with its column. */
	onNotice?: (message: string) => void;
}

function rowsOf(raw: unknown): IDataObject[] {
	return isPlainObject(raw) && Array.isArray(raw.condition) ? (raw.condition as IDataObject[]) : [];
}

/** Turns UI rows into builder conditions, each value taken from the input that fits its field. */
async function toConditions(
	rows: IDataObject[],
	fields: Fields,
	options: FilterInputOptions,
): Promise<FilterCondition[]> {
	const attributes = new Map(
		filterableAttributes(fields).map((attribute) => [attribute.path, attribute]),
	);
	const conditions: FilterCondition[] = [];
	for (const row of rows) {
		const field = String(row.field ?? '');
		const operator = String(row.operator ?? 'eq');
		const attribute = attributes.get(field);
		if (operator === 'empty' || operator === 'notEmpty') {
			conditions.push({ field, operator: 'pr', negate: operator === 'empty' });
			continue;
		}
		if (operator === 'isTrue' || operator === 'isFalse') {
			conditions.push({ field, operator: 'eq', value: operator === 'isTrue' });
			continue;
		}
		let value: unknown = row[valueParameterName(attribute)];
		if (attribute?.field.type === 'date') value = toServiceDate(value, options.timezone);
		if (attribute?.field.type === 'dateTime') value = dayOrInstant(value, options.timezone);
		if (!attribute && field.startsWith(CUSTOM_FIELD_PREFIX) && options.customFieldTypes) {
			value = await customValue(field.slice(CUSTOM_FIELD_PREFIX.length), value, options);
		}
		// "is not equal to" and "does not contain" both hold for records with no value (the
		// service's own `ne` never matches those): not (x eq v), not (x co v)
		const negate = operator === 'notCo' || operator === 'ne';
		conditions.push({
			field,
			operator: (operator === 'notCo'
				? 'co'
				: operator === 'ne'
					? 'eq'
					: operator) as FilterCondition['operator'],
			value,
			negate,
			timezone: options.timezone,
		});
	}
	return conditions;
}

/**
 * A date-time field's value: a day (a date alone, or midnight with no time zone, which is what
 * n8n's date picker gives for a day) stays a date, which the filter builder reads as the whole day
 * in the workflow's time zone; anything else is the instant it names, in UTC.
 */
function dayOrInstant(value: unknown, timezone: string): unknown {
	if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T00:00(:00(\.0+)?)?)?$/.test(value.trim()))
		return value.trim().slice(0, 10);
	return toServiceDateTime(value, timezone);
}

/** A custom field's value typed by the field's definition (numbers compare as numbers). */
async function customValue(
	name: string,
	value: unknown,
	options: FilterInputOptions,
): Promise<unknown> {
	const type = (await options.customFieldTypes?.())?.get(name.toLowerCase());
	if ((type === 'Number' || type === 'Currency') && typeof value === 'string')
		return plainNumber(value) ?? value;
	return value;
}

/**
 * The filter for a list request (print it with printFilter), from the node's Filter parameters: none, built from rows
 * (through the filter module's builder and printer) or typed as an expression (checked first).
 * Throws a FilterInputError naming the parameter and, for expressions, the column, or a
 * FilterConditionError naming the builder row.
 */
export async function readFilter(
	schema: ResourceSchema,
	options: FilterInputOptions,
): Promise<FilterNode | undefined> {
	const mode = options.getParameter('filterMode', 'none');
	if (mode === 'expression') {
		const text = String(options.getParameter('filterExpression', '') ?? '').trim();
		if (!text) return undefined;
		const checked = inspectFilter(text, options.expressionSchema ?? schema, (notice) =>
			options.onNotice?.(`Filter Expression, column ${notice.column}: ${notice.message}`),
		);
		if (checked instanceof FilterError)
			throw new FilterInputError('Filter Expression', `Filter Expression, ${checked.message}`);
		return checked;
	}
	if (mode !== 'manual') return undefined;
	const group: FilterGroup & { conditions: Array<FilterCondition | FilterListCondition> } = {
		match: options.getParameter('matchType', 'all') === 'any' ? 'any' : 'all',
		conditions: await toConditions(
			rowsOf(options.getParameter('conditions', {})),
			schema.fields,
			options,
		),
	};
	const list = options.listField ? schema.fields[options.listField] : undefined;
	if (options.listField && list?.type === 'list') {
		const rows = rowsOf(options.getParameter('listConditions', {}));
		if (rows.length) {
			group.conditions.push({
				field: options.listField,
				within: {
					match: options.getParameter('listMatchType', 'all') === 'any' ? 'any' : 'all',
					conditions: await toConditions(rows, list.fields, options),
				},
			});
		}
	}
	// a bad row throws a FilterConditionError naming the row and the field
	return buildFilter(group, schema);
}
