/** The filter builder's operators: its groups, their labels and defaults, by kind of attribute. */
import type { INodePropertyOptions } from 'n8n-workflow';
import { attributeKind, type AttributeKind } from '../filter/validate';
import type { Field } from '../schema/fields';

/** Operator groups offered by the builder: the kinds of attribute, and custom fields (untyped). */
export type OperatorGroup = AttributeKind | 'custom';

export const option = (name: string, value: string, description?: string): INodePropertyOptions =>
	description === undefined ? { name, value } : { name, value, description };
/** Said on both negative operators: they agree on records with no value. */
const ALSO_EMPTY = 'Also matches records with no value (add Is Not Empty to leave them out)';
const EQUALITY = [option('Is Equal To', 'eq'), option('Is Not Equal To', 'ne', ALSO_EMPTY)];
const EMPTINESS = [option('Is Empty', 'empty'), option('Is Not Empty', 'notEmpty')];
const TEXT = [
	option('Contains', 'co'),
	option('Does Not Contain', 'notCo', ALSO_EMPTY),
	option('Ends With', 'ew'),
	option('Starts With', 'sw'),
];
const ORDER = [
	option('Is Greater Than', 'gt'),
	option('Is Greater Than or Equal To', 'ge'),
	option('Is Less Than', 'lt'),
	option('Is Less Than or Equal To', 'le'),
];
const DATE_ORDER = [
	option('Is After', 'gt'),
	option('Is On or After', 'ge'),
	option('Is Before', 'lt'),
	option('Is On or Before', 'le'),
];

/** A list of operators sorted by label, as n8n's lists are. */
export const sorted = (...groups: INodePropertyOptions[][]) =>
	groups.flat().sort((a, b) => a.name.localeCompare(b.name));

/** Operators offered per kind of attribute; custom fields have no declared type, so get them all. */
export const OPERATORS: Record<OperatorGroup, INodePropertyOptions[]> = {
	text: sorted(TEXT, EQUALITY, EMPTINESS),
	enum: sorted(EQUALITY, EMPTINESS),
	number: sorted(EQUALITY, ORDER, EMPTINESS),
	date: sorted(EQUALITY, DATE_ORDER, EMPTINESS),
	boolean: sorted([option('Is False', 'isFalse'), option('Is True', 'isTrue')], EMPTINESS),
	custom: sorted(TEXT, EQUALITY, ORDER, EMPTINESS),
};

export const DEFAULT_OPERATOR: Record<OperatorGroup, string> = {
	text: 'eq',
	enum: 'eq',
	number: 'eq',
	date: 'ge',
	boolean: 'isTrue',
	custom: 'eq',
};

/** The builder's operator group of a field: its kind as a filter attribute. */
export const operatorGroup = (field: Field): OperatorGroup | undefined => attributeKind(field);
