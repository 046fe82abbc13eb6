import type { INode } from 'n8n-workflow';
import { SyncRefusal } from './refusal';

/**
 * Keys as Sync reads and compares them. A key is trimmed (CSV round trips add spaces), and two
 * keys are the same when they are equal case aside: the service compares text that way
 * (service-behaviour.md §6, `eq` is case-insensitive), so a lookup of `sn-1` finds `SN-1`, and
 * serial numbers and asset tags change case between exports.
 */

/** A key as written in a row or a record: trimmed text, or undefined when there is none. */
export function cleanKey(value: unknown): string | undefined {
	const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
	if (typeof text !== 'string') return undefined;
	const trimmed = text.trim();
	return trimmed || undefined;
}

/** The form two keys are compared in: equal forms name the same record. */
export const keyForm = (key: string): string => key.toLowerCase();

/**
 * Values device firmware and MDM exports put in a serial number (or tag) field when there is
 * none: the SMBIOS fillers, the field's own name, and what virtual machines report; and what a
 * procurement export puts in a purchase order number not yet given: TBD, TBA, Pending
 * (../shared/notes/dirty-exports.md). Lines between slashes are regular expressions.
 */
export const DEFAULT_PLACEHOLDER_KEYS = [
	'To Be Filled By O.E.M.',
	'Default string',
	'System Serial Number',
	'Chassis Serial Number',
	'SerialNumber',
	'Serial Number',
	'Not Specified',
	'Not Applicable',
	'None',
	'N/A',
	'NA',
	'Unknown',
	'Invalid',
	'TBD',
	'TBA',
	'Pending',
	'0123456789',
	'123456789',
	'/^0+$/',
	'/^x+$/',
	'/^-+$/',
].join('\n');

/** Tells whether a cleaned key means "no key": one of the listed values, case aside. */
export type PlaceholderTest = (key: string) => boolean;

/** A regular expression matched case aside, or why the text is none. */
function regularExpression(source: string): RegExp | string {
	try {
		return new RegExp(source, 'i');
	} catch (error) {
		return (error as Error).message;
	}
}

/**
 * An option of one key per line (commas separate too, outside a regular expression), cleaned and
 * in key form, and `/.../` lines as regular expressions matched case aside. Fails the run naming
 * the option and the line when an expression does not compile.
 */
function readKeyLines(
	node: INode,
	text: unknown,
	option: string,
): { values: Set<string>; patterns: RegExp[] } {
	const values = new Set<string>();
	const patterns: RegExp[] = [];
	for (const line of String(text ?? '').split(/\r?\n/)) {
		const trimmed = line.trim();
		const pattern = /^\/(.+)\/$/.exec(trimmed);
		if (pattern) {
			const compiled = regularExpression(pattern[1]);
			if (typeof compiled === 'string')
				throw new SyncRefusal(
					node,
					'settings',
					`${option}: the line ${JSON.stringify(trimmed)} is not a regular expression (${compiled})`,
					`Nothing was written. Correct the node's ${option} option.`,
				);
			patterns.push(compiled);
			continue;
		}
		for (const value of trimmed.split(',')) {
			const key = cleanKey(value);
			if (key !== undefined) values.add(keyForm(key));
		}
	}
	return { values, patterns };
}

/**
 * Reads the Placeholder Keys option: one value per line (commas separate too, outside a regular
 * expression), compared case aside; `/.../` is a regular expression, matched case aside.
 */
export function placeholderTest(node: INode, text: unknown): PlaceholderTest {
	const { values, patterns } = readKeyLines(node, text, 'Placeholder Keys');
	if (!values.size && !patterns.length) return () => false;
	return (key) => values.has(keyForm(key)) || patterns.some((pattern) => pattern.test(key));
}

/**
 * Reads a list of key prefixes (one per line, case aside) and `/.../` regular expressions: a key
 * matches when it starts with a prefix or matches an expression. Empty, it matches nothing.
 */
export function prefixTest(node: INode, text: unknown, option: string): PlaceholderTest {
	const { values, patterns } = readKeyLines(node, text, option);
	const prefixes = [...values];
	return (key) =>
		prefixes.some((prefix) => keyForm(key).startsWith(prefix)) ||
		patterns.some((pattern) => pattern.test(key));
}
