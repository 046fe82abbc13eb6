import type { Field, Fields } from '../schema/fields';
import { didYouMean } from '../schema/values';

/** An attribute path resolved against a schema: canonical keys and the field it ends on. */
export type ResolvedAttribute =
	| { kind: 'field'; keys: string[]; field: Field; fieldsOnPath: Field[] }
	/** `customFieldValues.<name>` / `customFields.<name>`: open-ended, any type. */
	| { kind: 'custom'; keys: string[]; name: string; fieldsOnPath: Field[] };

/** One part of an attribute path as the filter language reads it (lexer.ts). */
const NAME = /^[A-Za-z_][A-Za-z0-9_$-]*$/;
const KEYWORDS = new Set(['and', 'or', 'not']);

/**
 * Whether text is an attribute path that prints as one attribute: dotted names of letters,
 * digits, `_`, `$` and `-`, and not a bare keyword. Anything else would change a filter's shape
 * when printed (`customFieldValues.a pr or id`).
 */
export const isAttributePath = (text: string): boolean =>
	text.split('.').every((part) => NAME.test(part)) && !KEYWORDS.has(text.toLowerCase());

const lowerCaseIndexes = new WeakMap<Fields, Map<string, string>>();

/** The schema key matching a name case-insensitively. */
export function findKey(fields: Fields, name: string): string | undefined {
	let index = lowerCaseIndexes.get(fields);
	if (!index) {
		index = new Map(Object.keys(fields).map((key) => [key.toLowerCase(), key]));
		lowerCaseIndexes.set(fields, index);
	}
	return index.get(name.toLowerCase());
}

/** Resolves a dotted attribute path; a string result says what is wrong with it. */
export function resolveAttribute(fields: Fields, attribute: string): ResolvedAttribute | string {
	const segments = attribute.split('.');
	const keys: string[] = [];
	const fieldsOnPath: Field[] = [];
	let current = fields;
	for (let i = 0; i < segments.length; i++) {
		const key = findKey(current, segments[i]);
		const prefix = keys.length ? `${keys.join('.')}.` : '';
		if (key === undefined) {
			const candidates = Object.keys(current).map((name) => prefix + name);
			return `unknown attribute '${prefix}${segments[i]}'${didYouMean(prefix + segments[i], candidates)}`;
		}
		const field = current[key];
		keys.push(key);
		fieldsOnPath.push(field);
		if (i === segments.length - 1) return { kind: 'field', keys, field, fieldsOnPath };
		if (field.type === 'customFields') {
			if (i + 2 !== segments.length) {
				return `a custom field is addressed as '${key}.<name>', without further parts ('${attribute}')`;
			}
			const name = segments[i + 1];
			if (!NAME.test(name)) {
				return `'${name}' is not a custom field name (letters, digits, '_', '$' and '-', starting with a letter or '_')`;
			}
			return { kind: 'custom', keys, name, fieldsOnPath };
		}
		if (field.type !== 'object' && field.type !== 'list') {
			return `'${keys.join('.')}' has no sub-attributes ('${attribute}')`;
		}
		current = field.fields;
	}
	return 'empty attribute name';
}
