/** The filter builder's form: conditions (field, operator, value), how they combine, or raw text. */
import type { INodeProperties } from 'n8n-workflow';
import { enumLabel, type ResourceSchema } from '../schema/fields';
import {
	CUSTOM_FIELD_PREFIX,
	filterableAttributes,
	valueParameterName,
	type FilterableAttribute,
} from './filterAttributes';
import { DEFAULT_OPERATOR, OPERATORS, option, sorted, type OperatorGroup } from './filterOperators';
import { CURRENCY_OPTIONS } from './recordFields';

const NO_VALUE = ['empty', 'notEmpty', 'isTrue', 'isFalse'];

/** How a group of conditions combines (filterInput.ts reads 'all' or 'any'). */
const MUST_MATCH = [option('All Conditions', 'all'), option('Any Condition', 'any')];

/** The rows of one condition (field, operator and a value input fitting the field). */
function conditionValues(
	attributes: FilterableAttribute[],
	fieldOptions: Partial<INodeProperties>,
	customFields: boolean,
): INodeProperties[] {
	const pathsOf = (predicate: (attribute: FilterableAttribute) => boolean) =>
		attributes.filter(predicate).map((attribute) => attribute.path);
	const customCondition = customFields ? [{ _cnd: { startsWith: CUSTOM_FIELD_PREFIX } }] : [];
	const showFor = (
		paths: Array<string | { _cnd: { startsWith: string } }>,
		hideNoValue = true,
	): INodeProperties['displayOptions'] => ({
		show: { field: paths },
		...(hideNoValue ? { hide: { operator: NO_VALUE } } : {}),
	});

	const operators: INodeProperties[] = (Object.keys(OPERATORS) as OperatorGroup[])
		.map((group) => {
			const paths =
				group === 'custom' ? customCondition : pathsOf((attribute) => attribute.group === group);
			return { group, paths };
		})
		.filter(({ paths }) => paths.length > 0)
		.map(({ group, paths }): INodeProperties => {
			const defaultOperator = DEFAULT_OPERATOR[group];
			return {
				displayName: 'Operator',
				name: 'operator',
				type: 'options',
				options: OPERATORS[group],
				default: defaultOperator,
				displayOptions: showFor(paths, false),
			};
		});

	const textPaths = pathsOf(
		(attribute) => attribute.group === 'text' && attribute.field.type !== 'currency',
	);
	const values = (
		[
			{
				displayName: 'Value',
				name: 'value',
				type: 'string',
				default: '',
				hint: 'Compared case-insensitively',
				displayOptions: showFor(textPaths),
			},
			{
				displayName: 'Value',
				name: 'value',
				type: 'string',
				default: '',
				hint: "Read as the custom field's type: a number field compares as a number",
				displayOptions: showFor(customCondition),
			},
			{
				displayName: 'Value',
				name: 'currencyValue',
				type: 'options',
				options: CURRENCY_OPTIONS,
				default: 'USD',
				displayOptions: showFor(pathsOf((attribute) => attribute.field.type === 'currency')),
			},
			{
				displayName: 'Value',
				name: 'numberValue',
				type: 'number',
				default: 0,
				displayOptions: showFor(pathsOf((attribute) => attribute.group === 'number')),
			},
			{
				displayName: 'Value',
				name: 'dateValue',
				type: 'dateTime',
				default: '',
				hint: "A day (a date alone, or a day picked without a time) is the whole day in the workflow's time zone, for every operator; a time without a time zone is read in it too",
				displayOptions: showFor(pathsOf((attribute) => attribute.group === 'date')),
			},
			...attributes
				.filter((attribute) => attribute.group === 'enum' && attribute.field.type === 'enum')
				.map((attribute): INodeProperties => {
					const values = attribute.field.type === 'enum' ? attribute.field.values : [];
					const firstValue = values[0];
					return {
						displayName: 'Value',
						name: valueParameterName(attribute),
						type: 'options',
						options: sorted(values.map((value) => option(enumLabel(value), value))),
						default: firstValue,
						displayOptions: showFor([attribute.path]),
					};
				}),
		] as INodeProperties[]
	).filter((property) => (property.displayOptions?.show?.field ?? []).length > 0);

	const firstPath = attributes[0].path;
	// one label on every node: n8n's convention for a list loaded from the service (the Asset
	// node's, which adds the custom fields) and its description, which holds for fixed lists too
	const field: INodeProperties = {
		displayName: 'Field Name or ID',
		name: 'field',
		type: 'options',
		default: firstPath,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
	};
	return [{ ...field, ...fieldOptions }, ...operators, ...values];
}

export interface FilterUiOptions {
	/** Load the field list (schema fields plus the service's custom fields) with this method. */
	loadFieldsMethod?: string;
	/** A list field whose elements get their own condition group (contracts' line items). */
	listField?: string;
	/** Text of the notice shown for raw expressions. */
	resourceLabel: string;
	/** A sentence added to the expression's syntax notice (what the expression may name). */
	expressionNote?: string;
}

/** The filter block of Get Many and the trigger: None / Build Manually / Expression. */
export function filterProperties(
	schema: ResourceSchema,
	options: FilterUiOptions,
): INodeProperties[] {
	const attributes = filterableAttributes(schema.fields);
	const staticOptions: Partial<INodeProperties> = options.loadFieldsMethod
		? { typeOptions: { loadOptionsMethod: options.loadFieldsMethod } }
		: {
				options: attributes
					.map(({ label, path }) => ({ name: label, value: path }))
					.sort((a, b) => a.name.localeCompare(b.name)),
			};
	const properties: INodeProperties[] = [
		{
			displayName: 'Filter',
			name: 'filterMode',
			type: 'options',
			options: [
				{ name: 'None', value: 'none' },
				{
					name: 'Build Manually',
					value: 'manual',
					description: 'Pick fields, operators and values',
				},
				{
					name: 'Expression',
					value: 'expression',
					description: 'Write the filter expression yourself',
				},
			],
			default: 'none',
		},
		{
			displayName: 'Must Match',
			name: 'matchType',
			type: 'options',
			options: MUST_MATCH,
			default: 'all',
			displayOptions: { show: { filterMode: ['manual'] } },
		},
		{
			displayName: 'Conditions',
			name: 'conditions',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Condition',
			default: {},
			displayOptions: { show: { filterMode: ['manual'] } },
			options: [
				{
					displayName: 'Condition',
					name: 'condition',
					values: conditionValues(attributes, staticOptions, Boolean(options.loadFieldsMethod)),
				},
			],
		},
	];
	const list = options.listField ? schema.fields[options.listField] : undefined;
	if (options.listField && list?.type === 'list') {
		const itemAttributes = filterableAttributes(list.fields);
		const itemName = list.itemName.toLowerCase();
		properties.push(
			{
				displayName: `${list.itemName} Must Match`,
				name: 'listMatchType',
				type: 'options',
				options: MUST_MATCH,
				default: 'all',
				description: `How the ${itemName} conditions combine (within one ${itemName})`,
				displayOptions: { show: { filterMode: ['manual'] } },
			},
			{
				displayName: `${list.itemName} Conditions`,
				name: 'listConditions',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true, sortable: true },
				placeholder: `Add ${list.itemName} Condition`,
				default: {},
				description: `Matches ${schema.noun}s having at least one ${itemName} that meets these conditions`,
				displayOptions: { show: { filterMode: ['manual'] } },
				options: [
					{
						displayName: 'Condition',
						name: 'condition',
						values: conditionValues(
							itemAttributes,
							{
								options: itemAttributes
									.map(({ label, path }) => ({ name: label, value: path }))
									.sort((a, b) => a.name.localeCompare(b.name)),
							},
							false,
						),
					},
				],
			},
		);
	}
	properties.push(
		{
			displayName: `Syntax: <code>attribute operator value</code> with eq, ne, co, sw, ew, gt, ge, lt, le, pr; and, or, not (…); strings in double quotes.${options.expressionNote ? ` ${options.expressionNote}` : ''} Example: <code>${schema.filterExample}</code>`,
			name: 'filterNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { filterMode: ['expression'] } },
		},
		{
			displayName: 'Filter Expression',
			name: 'filterExpression',
			type: 'string',
			default: '',
			placeholder: schema.filterExample,
			description: `Filter ${options.resourceLabel} with an expression; it is checked before anything is sent, and a mistake names its column`,
			displayOptions: { show: { filterMode: ['expression'] } },
		},
	);
	return properties;
}
