import { toServiceDate } from '../dates';
import type { CustomFieldDefinition } from './asset';
import { findDefinition } from './validate';
import { hasValue, isPlainObject, plainNumber } from './values';

/**
 * The key of a custom field map (`customFieldValues`, `customFields`, a source item's) that holds
 * this field's value: its lookup key or its name, case aside, as findDefinition resolves them.
 */
export function entryKey(
	map: Record<string, unknown>,
	definition: CustomFieldDefinition,
): string | undefined {
	if (definition.lookupKey in map) return definition.lookupKey;
	return Object.keys(map).find((key) => findDefinition(key, [definition]) !== undefined);
}

/**
 * A plain value (a mapped column, a `customFields` entry) as the wrapped value the service takes
 * in `customFieldValues`, typed by the field's definition. Text that reads as no number ("16 GB",
 * "1.299,50 EUR") is kept as given, so validation quotes it rather than NaN.
 */
export function wrapCustomValue(
	value: unknown,
	definition: CustomFieldDefinition | undefined,
	timezone: string,
): Record<string, unknown> {
	switch (definition?.type) {
		case 'Number':
			return { numberValue: typeof value === 'string' ? (plainNumber(value) ?? value) : value };
		case 'Date':
			return { textValue: toServiceDate(value, timezone) };
		case 'Option':
			return {
				optionValue: Array.isArray(value)
					? value
					: String(value)
							.split(',')
							.map((label) => label.trim())
							.filter(Boolean),
			};
		case 'Link':
			return { linkValue: isPlainObject(value) ? value : { href: String(value) } };
		case 'Currency': {
			if (isPlainObject(value)) return { currencyValue: value };
			// "1299.50 EUR": the amount and its code in one column
			const [amount, currency] = String(value).trim().split(/\s+/);
			const read = plainNumber(amount);
			return { currencyValue: read === undefined ? value : { value: read, currency } };
		}
		default:
			return { textValue: String(value) };
	}
}

/**
 * A wrapped value in the one shape Sync compares and writes: the API document's bare money
 * amount `{value, currency}` under `currencyValue`, a Date field's text as `YYYY-MM-DD`; null
 * when it has no value.
 */
export function canonicalCustomValue(
	value: unknown,
	definition: CustomFieldDefinition,
	timezone: string,
): unknown {
	if (!hasValue(value)) return null;
	if (!isPlainObject(value)) return value;
	const keys = Object.keys(value);
	if (keys.length === 2 && 'value' in value && 'currency' in value)
		return { currencyValue: { value: value.value, currency: value.currency } };
	if (definition.type === 'Date' && keys.length === 1 && typeof value.textValue === 'string')
		return { textValue: toServiceDate(value.textValue, timezone) };
	return value;
}

/** The form two canonical values are compared in: selected options as a set. */
export function customCompareForm(value: unknown): unknown {
	if (isPlainObject(value) && Array.isArray(value.optionValue))
		return { optionValue: [...(value.optionValue as unknown[])].map(String).sort() };
	return value;
}
