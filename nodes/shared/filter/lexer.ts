import { isAttributePath } from './attributes';
import { FilterError } from './errors';

export type Token =
	| { type: 'word'; text: string; position: number }
	| { type: 'string'; value: string; text: string; position: number }
	| { type: 'number'; value: number; text: string; position: number }
	| { type: '(' | ')' | '[' | ']'; text: string; position: number }
	| { type: 'end'; text: ''; position: number };

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_\-$]/;
const DIGIT = /[0-9]/;
const ESCAPES: Record<string, string> = {
	'"': '"',
	'\\': '\\',
	'/': '/',
	b: '\b',
	f: '\f',
	n: '\n',
	r: '\r',
	t: '\t',
};

/** Splits filter text into tokens in one left-to-right pass (linear time, no backtracking). */
export function tokenize(source: string): Token[] {
	const tokens: Token[] = [];
	let index = 0;
	while (index < source.length) {
		const char = source[index];
		if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
			index++;
		} else if (char === '(' || char === ')' || char === '[' || char === ']') {
			tokens.push({ type: char, text: char, position: index });
			index++;
		} else if (char === '"') {
			index = readString(source, index, tokens);
		} else if (char === '-' || DIGIT.test(char)) {
			index = readNumber(source, index, tokens);
		} else if (WORD_START.test(char)) {
			index = readWord(source, index, tokens);
		} else {
			throw new FilterError(index + 1, `unexpected character ${describeCharacter(char)}`);
		}
	}
	tokens.push({ type: 'end', text: '', position: source.length });
	return tokens;
}

function describeCharacter(char: string): string {
	const code = char.codePointAt(0) ?? 0;
	return code < 0x20 || code === 0x7f
		? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
		: `'${char}'`;
}

/** Characters of a schema URI before an attribute name (attributes.ts checks the whole). */
const URI_PART = /[A-Za-z0-9._~:/%+\-$]/;

/**
 * A dotted attribute path (`lastModifiedBy.email`, `groups.$ref`), one qualified with its schema's
 * URI (`urn:ietf:params:scim:schemas:core:2.0:User:name.familyName`, RFC 7644 §3.10), or a
 * keyword.
 */
function readWord(source: string, start: number, tokens: Token[]): number {
	let index = start + 1;
	for (;;) {
		while (index < source.length && WORD_PART.test(source[index])) index++;
		if (source[index] === ':') return readQualified(source, start, tokens);
		if (source[index] !== '.') break;
		if (!/[A-Za-z_$]/.test(source[index + 1] ?? '')) {
			throw new FilterError(
				index + 2,
				`expected an attribute name after '.', found ${
					index + 1 < source.length ? describeCharacter(source[index + 1]) : 'end of input'
				}`,
			);
		}
		index += 2;
	}
	tokens.push({ type: 'word', text: source.slice(start, index), position: start });
	return index;
}

/** `<schema URI>:<attribute path>`: the URI runs to the last colon of the word. */
function readQualified(source: string, start: number, tokens: Token[]): number {
	let index = start;
	while (index < source.length && URI_PART.test(source[index])) index++;
	const text = source.slice(start, index);
	if (!isAttributePath(text)) {
		const colon = text.lastIndexOf(':');
		throw new FilterError(
			start + 1,
			colon === text.length - 1
				? `expected an attribute name after the schema URI '${text.slice(0, -1)}'`
				: `'${text}' is not an attribute name (a schema URI such as urn:ietf:params:scim:schemas:core:2.0:User, a colon, then the attribute)`,
		);
	}
	tokens.push({ type: 'word', text, position: start });
	return index;
}

function readNumber(source: string, start: number, tokens: Token[]): number {
	let index = start;
	if (source[index] === '-') index++;
	const digitsStart = index;
	while (DIGIT.test(source[index] ?? '')) index++;
	if (index === digitsStart) {
		throw new FilterError(
			start + 1,
			`expected a digit after '-', found ${
				index < source.length ? describeCharacter(source[index]) : 'end of input'
			}`,
		);
	}
	if (source[digitsStart] === '0' && index - digitsStart > 1) {
		throw new FilterError(
			start + 1,
			`invalid number '${source.slice(start, index)}' (no leading zeros)`,
		);
	}
	if (source[index] === '.') {
		index++;
		const fractionStart = index;
		while (DIGIT.test(source[index] ?? '')) index++;
		if (index === fractionStart) {
			throw new FilterError(
				index + 1,
				`expected a digit after the decimal point in '${source.slice(start, index)}'`,
			);
		}
	}
	if (source[index] === 'e' || source[index] === 'E') {
		index++;
		if (source[index] === '+' || source[index] === '-') index++;
		const exponentStart = index;
		while (DIGIT.test(source[index] ?? '')) index++;
		if (index === exponentStart) {
			throw new FilterError(
				index + 1,
				`expected the exponent's digits in '${source.slice(start, index)}'`,
			);
		}
	}
	const text = source.slice(start, index);
	const value = Number(text);
	if (!Number.isFinite(value)) {
		throw new FilterError(start + 1, `number '${text}' is out of range`);
	}
	tokens.push({ type: 'number', value, text, position: start });
	return index;
}

/** A double-quoted string with JSON escapes, decoded. */
function readString(source: string, start: number, tokens: Token[]): number {
	let index = start + 1;
	let value = '';
	let chunkStart = index;
	for (;;) {
		if (index >= source.length) {
			throw new FilterError(start + 1, "unterminated string (missing closing '\"')");
		}
		const char = source[index];
		if (char === '"') break;
		if (char !== '\\') {
			index++;
			continue;
		}
		value += source.slice(chunkStart, index);
		const escape = source[index + 1];
		if (escape === 'u') {
			const hex = source.slice(index + 2, index + 6);
			if (!/^[0-9A-Fa-f]{4}$/.test(hex)) {
				throw new FilterError(
					index + 1,
					`invalid escape '\\u${hex}' in string (expected 4 hex digits)`,
				);
			}
			value += String.fromCharCode(parseInt(hex, 16));
			index += 6;
		} else if (escape !== undefined && escape in ESCAPES) {
			value += ESCAPES[escape];
			index += 2;
		} else {
			throw new FilterError(
				index + 1,
				escape === undefined
					? "unterminated string (missing closing '\"')"
					: `invalid escape '\\${escape}' in string (use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)`,
			);
		}
		chunkStart = index;
	}
	value += source.slice(chunkStart, index);
	tokens.push({ type: 'string', value, text: source.slice(start, index + 1), position: start });
	return index + 1;
}
