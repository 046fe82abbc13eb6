import type { Field, Fields } from '../schema/fields';
import { didYouMean } from '../schema/values';

/** An attribute path resolved against a schema: canonical keys and the field it ends on. */
export type ResolvedAttribute =
	| { kind: 'field'; keys: string[]; field: Field; fieldsOnPath: Field[] }
	/** `customFieldValues.<name>` / `customFields.<name>`: open-ended, any type. */
	| { kind: 'custom'; keys: string[]; name: string; fieldsOnPath: Field[] };

/** One part of an attribute path as the filter language reads it (lexer.ts); `$ref` is SCIM's. */
const NAME = /^\$?[A-Za-z_][A-Za-z0-9_$-]*$/;
const KEYWORDS = new Set(['and', 'or', 'not']);

/**
 * A schema URI before an attribute (RFC 7644 §3.10: `urn:ietf:params:scim:schemas:core:2.0:User:
 * userName`): a scheme, a colon and characters that cannot end or split a token (no space,
 * quote, bracket or parenthesis).
 */
const SCHEMA_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9._~:/%+-]*[A-Za-z0-9]$/;

/** An attribute path's parts: the schema URI it is qualified with, if any, and its names. */
export interface AttributeParts {
	uri?: string;
	names: string[];
}

/**
 * Splits attribute text into its schema URI (up to the last colon) and its dotted names; undefined
 * when it is not an attribute path: names of letters, digits, `_`, `$` and `-` (the first one
 * starting with a letter or `_`), optionally after a schema URI, and not a bare keyword.
 */
export function splitAttribute(text: string): AttributeParts | undefined {
	const colon = text.lastIndexOf(':');
	const uri = colon < 0 ? undefined : text.slice(0, colon);
	if (uri !== undefined && !SCHEMA_URI.test(uri)) return undefined;
	const names = text.slice(colon + 1).split('.');
	if (!names.every((name) => NAME.test(name)) || names[0].startsWith('$')) return undefined;
	if (uri === undefined && KEYWORDS.has(text.toLowerCase())) return undefined;
	return { uri, names };
}

/**
 * Whether text is an attribute path that prints as one attribute. Anything else would change a
 * filter's shape when printed (`customFieldValues.a pr or id`).
 */
export const isAttributePath = (text: string): boolean => splitAttribute(text) !== undefined;

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

/** Keys as a path: dots between names, a colon after a schema URI (an extension's key). */
const pathOf = (keys: string[]): string =>
	keys.reduce(
		(path, key, i) => (i === 0 ? key : `${path}${keys[i - 1].includes(':') ? ':' : '.'}${key}`),
		'',
	);

/**
 * Resolves an attribute path; a string result says what is wrong with it. A path qualified with
 * the resource's core schema URI (`coreSchema`) is the path itself; one qualified with another URI is looked up in
 * the field keyed by that URI (a schema extension, RFC 7643 §3.3).
 */
export function resolveAttribute(
	fields: Fields,
	attribute: string,
	coreSchema?: string,
): ResolvedAttribute | string {
	const parts = splitAttribute(attribute);
	if (!parts) return `'${attribute}' is not an attribute name`;
	const segments =
		parts.uri === undefined || parts.uri.toLowerCase() === coreSchema?.toLowerCase()
			? parts.names
			: [parts.uri, ...parts.names];
	const keys: string[] = [];
	const fieldsOnPath: Field[] = [];
	let current = fields;
	for (let i = 0; i < segments.length; i++) {
		const key = findKey(current, segments[i]);
		if (key === undefined) {
			const named = pathOf([...keys, segments[i]]);
			const candidates = Object.keys(current).map((name) => pathOf([...keys, name]));
			return `unknown attribute '${named}'${didYouMean(named, candidates)}`;
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
			if (!NAME.test(name) || name.startsWith('$')) {
				return `'${name}' is not a custom field name (letters, digits, '_', '$' and '-', starting with a letter or '_')`;
			}
			return { kind: 'custom', keys, name, fieldsOnPath };
		}
		if (field.type !== 'object' && field.type !== 'list') {
			return `'${pathOf(keys)}' has no sub-attributes ('${attribute}')`;
		}
		current = field.fields;
	}
	return 'empty attribute name';
}

/**
 * A multi-valued attribute compared as a whole (`emails co "example.com"`, RFC 7644 §3.4.2.2)
 * compares its `value` sub-attribute (RFC 7643 §2.4); any other attribute is itself.
 */
export function comparedAttribute(resolved: ResolvedAttribute): ResolvedAttribute {
	if (resolved.kind !== 'field' || resolved.field.type !== 'list') return resolved;
	const key = findKey(resolved.field.fields, 'value');
	if (key === undefined) return resolved;
	const field = resolved.field.fields[key];
	return {
		kind: 'field',
		keys: [...resolved.keys, key],
		field,
		fieldsOnPath: [...resolved.fieldsOnPath, field],
	};
}

/**
 * Where an attribute the resource does not know is found in one of its schema extensions (the
 * enterprise extension's `department`, written without its URI): the qualified path, if any.
 */
export function qualifiedInExtension(fields: Fields, attribute: string): string | undefined {
	const parts = splitAttribute(attribute);
	if (!parts || parts.uri !== undefined) return undefined;
	for (const [key, field] of Object.entries(fields)) {
		if (!key.includes(':') || field.type !== 'object') continue;
		if (typeof resolveAttribute(field.fields, parts.names.join('.')) !== 'string')
			return `${key}:${attribute}`;
	}
	return undefined;
}
