import { CUSTOM_FIELD_KINDS, type CustomFieldDefinition } from './asset';
import { isCurrencyCode } from './currencies';
import type { Field, Fields, ResourceSchema } from './fields';
import {
	describeValue,
	didYouMean,
	hasValue,
	isCalendarDate,
	isDateTime,
	isDateValue,
	isEmail,
	isFiniteNumber,
	isHttpUrl,
	isPlainObject,
} from './values';

/**
 * One problem with one field of a record; `path` is like `lineItems[2].currency`, `label` the
 * field's name in the node's form (when the field is known).
 */
export interface FieldIssue {
	path: string;
	label?: string;
	message: string;
}

export interface ValidateOptions {
	/**
	 * `replace` is a full write (PUT): required fields must be present and `null` is not a value.
	 * `patch` changes only the fields given; `null` clears an optional field.
	 */
	mode: 'replace' | 'patch';
	/** What to do with fields the schema does not know. Read-only fields are always ignored. */
	unknownFields?: 'error' | 'ignore';
	/** When known, custom field names and value types are checked against these definitions. */
	customFieldDefinitions?: readonly CustomFieldDefinition[];
}

const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

/** Checks a record against a resource schema and returns every problem found (empty when valid). */
export function validateRecord(
	schema: ResourceSchema,
	record: unknown,
	options: ValidateOptions,
): FieldIssue[] {
	const issues: FieldIssue[] = [];
	if (!isPlainObject(record)) {
		issues.push({
			path: '',
			message: `expected the ${schema.noun} as a JSON object, got ${describeValue(record)}`,
		});
		return issues;
	}
	checkObject(schema.fields, record, '', options, issues, options.mode === 'replace');
	return issues;
}

function checkObject(
	fields: Fields,
	record: Record<string, unknown>,
	path: string,
	options: ValidateOptions,
	issues: FieldIssue[],
	requireFields: boolean,
): void {
	for (const [key, value] of Object.entries(record)) {
		const field = fields[key];
		const fieldPath = join(path, key);
		if (!field) {
			if (options.unknownFields !== 'ignore') {
				const writable = Object.keys(fields).filter((name) => !fields[name].readOnly);
				issues.push({
					path: fieldPath,
					message: `is not a field of this record${didYouMean(key, writable)}`,
				});
			}
			continue;
		}
		if (field.readOnly || value === undefined) continue;
		if (value === null) {
			if (options.mode === 'replace' || field.required) {
				issues.push({
					path: fieldPath,
					label: field.displayName,
					message: field.required
						? 'is required and cannot be cleared'
						: 'cannot be null; leave the field out instead',
				});
			}
			continue;
		}
		if (field.required && !hasValue(value)) {
			issues.push({
				path: fieldPath,
				label: field.displayName,
				message: `is required and cannot be empty: it must be ${describeExpected(field)}`,
			});
			continue;
		}
		checkValue(field, value, fieldPath, options, issues);
	}
	if (requireFields) {
		for (const [key, field] of Object.entries(fields)) {
			if (field.required && !field.readOnly && record[key] === undefined) {
				issues.push({
					path: join(path, key),
					label: field.displayName,
					message: `is required: it must be ${describeExpected(field)}`,
				});
			}
		}
	}
}

/** What a field expects, in words, for messages. */
export function describeExpected(field: Field): string {
	switch (field.type) {
		case 'string':
			return 'text';
		case 'email':
			return 'an e-mail address like name@example.com';
		case 'url':
			return 'an http(s) URL';
		case 'currency':
			return 'a 3-letter ISO 4217 currency code such as USD or EUR';
		case 'number': {
			const kind = field.integer ? 'a whole number' : 'a number';
			return field.min === 0 ? `${kind}, zero or more` : kind;
		}
		case 'boolean':
			return 'true or false';
		case 'date':
			return 'a date as YYYY-MM-DD';
		case 'dateTime':
			return 'a date-time in ISO 8601 with a time zone, like 2024-05-01T10:30:00Z';
		case 'enum':
			return `one of ${field.values.join(', ')}`;
		case 'object':
			return 'an object';
		case 'list':
			return `a list of ${field.itemName.toLowerCase()} objects`;
		case 'stringList':
			return 'a list of texts';
		case 'customFields':
			return 'an object keyed by custom field name';
	}
}

function checkValue(
	field: Field,
	value: unknown,
	path: string,
	options: ValidateOptions,
	issues: FieldIssue[],
): void {
	const problem = (detail = '') =>
		issues.push({
			path,
			label: field.displayName,
			message: `expected ${describeExpected(field)}${detail}, got ${describeValue(value)}`,
		});
	switch (field.type) {
		case 'string':
			if (typeof value !== 'string') problem();
			return;
		case 'email':
			if (typeof value !== 'string' || !isEmail(value)) problem();
			return;
		case 'url':
			if (typeof value !== 'string' || !isHttpUrl(value)) problem();
			return;
		case 'currency':
			if (typeof value !== 'string' || !isCurrencyCode(value)) problem();
			return;
		case 'number':
			if (!isFiniteNumber(value)) return void problem();
			if (field.min !== undefined && value < field.min) return void problem();
			if (field.integer && !Number.isInteger(value)) problem();
			return;
		case 'boolean':
			if (typeof value !== 'boolean') problem();
			return;
		case 'date':
			if (typeof value !== 'string' || !isDateValue(value)) {
				problem(
					typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)
						? ' (a real calendar date)'
						: '',
				);
			}
			return;
		case 'dateTime':
			if (typeof value !== 'string' || !isDateTime(value)) problem();
			return;
		case 'enum':
			if (typeof value !== 'string' || !field.values.includes(value)) {
				const hint = typeof value === 'string' ? didYouMean(value, field.values) : '';
				issues.push({
					path,
					label: field.displayName,
					message: `expected ${describeExpected(field)}, got ${describeValue(value)}${hint}`,
				});
			}
			return;
		case 'object':
			if (!isPlainObject(value)) return void problem();
			checkObject(field.fields, value, path, options, issues, options.mode === 'replace');
			return;
		case 'list':
			if (!Array.isArray(value)) return void problem();
			value.forEach((element, index) => {
				const elementPath = `${path}[${index}]`;
				if (!isPlainObject(element)) {
					issues.push({
						path: elementPath,
						label: field.itemName,
						message: `expected a ${field.itemName.toLowerCase()} object, got ${describeValue(element)}`,
					});
				} else {
					// list elements are always whole objects, whatever the write mode
					checkObject(
						field.fields,
						element,
						elementPath,
						{ ...options, mode: 'replace' },
						issues,
						true,
					);
				}
			});
			return;
		case 'stringList':
			if (!Array.isArray(value) || value.some((element) => typeof element !== 'string')) problem();
			return;
		case 'customFields':
			if (!isPlainObject(value)) return void problem();
			for (const [name, customValue] of Object.entries(value)) {
				const customPath = `${path}.${name}`;
				if (customValue === null && options.mode === 'patch') continue;
				const definition = findDefinition(name, options.customFieldDefinitions);
				if (options.customFieldDefinitions && !definition) {
					const names = options.customFieldDefinitions.map((d) => d.lookupKey);
					issues.push({
						path: customPath,
						message: `is not a custom field${didYouMean(name, names)}`,
					});
					continue;
				}
				const message =
					field.form === 'wrapped'
						? checkWrappedCustomValue(customValue, definition)
						: checkPlainCustomValue(customValue, definition);
				if (message) issues.push({ path: customPath, label: definition?.name, message });
			}
			return;
	}
}

/** A custom field definition by lookup key or name, case-insensitively. */
export function findDefinition(
	name: string,
	definitions: readonly CustomFieldDefinition[] | undefined,
): CustomFieldDefinition | undefined {
	const wanted = name.toLowerCase();
	return definitions?.find(
		(definition) =>
			definition.lookupKey.toLowerCase() === wanted || definition.name.toLowerCase() === wanted,
	);
}

const WRAPPED_ATTRIBUTES = [
	'numberValue',
	'textValue',
	'optionValue',
	'currencyValue',
	'linkValue',
];

function checkMoney(value: unknown): string | undefined {
	if (!isPlainObject(value))
		return `expected a money amount {value, currency}, got ${describeValue(value)}`;
	if (!isFiniteNumber(value.value))
		return `expected a number in value, got ${describeValue(value.value)}`;
	if (typeof value.currency !== 'string' || !isCurrencyCode(value.currency)) {
		return `expected a 3-letter ISO 4217 currency code in currency, got ${describeValue(value.currency)}`;
	}
	return undefined;
}

function checkOptions(
	selected: unknown,
	definition: CustomFieldDefinition | undefined,
): string | undefined {
	if (!Array.isArray(selected) || selected.some((option) => typeof option !== 'string')) {
		return `expected a list of option labels, got ${describeValue(selected)}`;
	}
	const labels = definition?.options?.map((option) => option.label);
	const unknown = labels && (selected as string[]).find((option) => !labels.includes(option));
	return unknown === undefined
		? undefined
		: `expected options among ${labels?.join(', ')}, got ${describeValue(unknown)}`;
}

/** Checks a `customFieldValues` entry: exactly one typed attribute (or a bare money amount). */
function checkWrappedCustomValue(
	value: unknown,
	definition: CustomFieldDefinition | undefined,
): string | undefined {
	if (!isPlainObject(value)) {
		return `expected a custom field value object such as {"textValue": "..."}, got ${describeValue(value)}`;
	}
	const keys = Object.keys(value);
	// the API document's sample sends a money amount without the currencyValue wrapper
	if (keys.includes('value') && keys.includes('currency') && keys.length === 2) {
		if (definition && definition.type !== 'Currency')
			return `is a ${definition.type} field, not a money amount`;
		return checkMoney(value);
	}
	if (keys.length !== 1 || !WRAPPED_ATTRIBUTES.includes(keys[0])) {
		return `expected exactly one of ${WRAPPED_ATTRIBUTES.join(', ')}, got ${describeValue(value)}`;
	}
	const [attribute] = keys;
	const inner = value[attribute];
	const expected = definition && CUSTOM_FIELD_KINDS[definition.type]?.attribute;
	if (expected && expected !== attribute) {
		return `is a ${definition.type} field: expected ${expected}, got ${attribute}`;
	}
	switch (attribute) {
		case 'numberValue':
			return isFiniteNumber(inner)
				? undefined
				: `expected a number in numberValue, got ${describeValue(inner)}`;
		case 'textValue':
			if (typeof inner !== 'string')
				return `expected text in textValue, got ${describeValue(inner)}`;
			return definition?.type === 'Date' && !isCalendarDate(inner)
				? `expected a date as YYYY-MM-DD in textValue, got ${describeValue(inner)}`
				: undefined;
		case 'optionValue':
			return checkOptions(inner, definition);
		case 'currencyValue':
			return checkMoney(inner);
		default: {
			if (!isPlainObject(inner) || typeof inner.href !== 'string' || !isHttpUrl(inner.href)) {
				return `expected a link {href, description} with an http(s) URL, got ${describeValue(inner)}`;
			}
			const extra = Object.keys(inner).find((key) => key !== 'href' && key !== 'description');
			if (extra) return `unexpected attribute '${extra}' in linkValue (expected href, description)`;
			return inner.description === undefined || typeof inner.description === 'string'
				? undefined
				: `expected text in linkValue.description, got ${describeValue(inner.description)}`;
		}
	}
}

/** Checks a `customFields` entry: a plain value of the field's type. */
function checkPlainCustomValue(
	value: unknown,
	definition: CustomFieldDefinition | undefined,
): string | undefined {
	switch (definition?.type) {
		case undefined:
			return ['string', 'number', 'boolean'].includes(typeof value) ||
				Array.isArray(value) ||
				isPlainObject(value)
				? undefined
				: `expected text, a number, true/false or list, got ${describeValue(value)}`;
		case 'Number':
			return isFiniteNumber(value) ? undefined : `expected a number, got ${describeValue(value)}`;
		case 'Text':
			return typeof value === 'string' ? undefined : `expected text, got ${describeValue(value)}`;
		case 'Date':
			return typeof value === 'string' && (isDateValue(value) || isDateTime(value))
				? undefined
				: `expected a date as YYYY-MM-DD, got ${describeValue(value)}`;
		case 'Link':
			return typeof value === 'string' && isHttpUrl(value)
				? undefined
				: `expected an http(s) URL, got ${describeValue(value)}`;
		case 'Currency':
			return isFiniteNumber(value) ? undefined : checkMoney(value);
		case 'Option':
			return checkOptions(typeof value === 'string' ? [value] : value, definition);
	}
}
