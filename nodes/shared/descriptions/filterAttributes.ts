/** What the filter builder offers to compare: every attribute of a schema, and each one's value input. */
import type { Field, Fields } from '../schema/fields';
import { operatorGroup, type OperatorGroup } from './filterOperators';

export interface FilterableAttribute {
	path: string;
	label: string;
	field: Field;
	group: OperatorGroup;
}

/** Every attribute the builder offers: scalars, sub-attributes of objects and of lists of objects. */
export function filterableAttributes(
	fields: Fields,
	prefix = '',
	labelPrefix = '',
): FilterableAttribute[] {
	const attributes: FilterableAttribute[] = [];
	for (const [key, field] of Object.entries(fields)) {
		if (field.filterable === false) continue;
		const path = prefix + key;
		const label = labelPrefix + field.displayName;
		// writable lists (line items) get their own condition group; read-only ones (SCIM emails)
		// are compared through their sub-attributes, true when any element matches
		if (field.type === 'object' || (field.type === 'list' && field.readOnly)) {
			attributes.push(...filterableAttributes(field.fields, `${path}.`, `${label} › `));
			continue;
		}
		const group = operatorGroup(field);
		if (group) attributes.push({ path, label, field, group });
	}
	return attributes;
}

export const CUSTOM_FIELD_PREFIX = 'customFieldValues.';

/** Parameter name of the value input for an attribute, by its kind. */
export function valueParameterName(attribute: FilterableAttribute | undefined): string {
	if (!attribute) return 'value';
	switch (attribute.group) {
		case 'number':
			return 'numberValue';
		case 'date':
			return 'dateValue';
		case 'enum':
			return `${attribute.path.replace(/\./g, '_')}Value`;
		default:
			return attribute.field.type === 'currency' ? 'currencyValue' : 'value';
	}
}
