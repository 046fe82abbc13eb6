import type { IDataObject } from 'n8n-workflow';
import { decodeText } from './stream';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const BOM = [0xef, 0xbb, 0xbf];

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

function skipSpace(bytes: Uint8Array, at: number): number {
	while (at < bytes.length && isSpace(bytes[at])) at++;
	return at;
}

/** Just past the string whose opening quote is at `at`; -1 when it does not end. */
function stringEnd(bytes: Uint8Array, at: number): number {
	const length = bytes.length;
	for (let i = at + 1; i < length; i++) {
		const byte = bytes[i];
		if (byte === QUOTE) return i + 1;
		if (byte === BACKSLASH) i++;
	}
	return -1;
}

/**
 * Where the value starting at `at` ends: the `,`, `]` or `}` that follows it at its own level
 * (strings skipped whole: UTF-8 never has these bytes inside a multi-byte character); -1 when
 * there is none. For valid JSON this is exactly the value's extent; for anything else, parsing
 * the slice fails.
 */
function valueEnd(bytes: Uint8Array, at: number): number {
	let depth = 0;
	while (at < bytes.length) {
		const byte = bytes[at];
		if (byte === QUOTE) {
			at = stringEnd(bytes, at);
			if (at < 0) return -1;
			continue;
		}
		if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
		else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
			if (depth === 0) return at;
			depth--;
		} else if (byte === COMMA && depth === 0) return at;
		at++;
	}
	return -1;
}

/** The elements of the array whose `[` is at `at`, each parsed alone, and where the array ends. */
function parseArray(
	bytes: Uint8Array,
	at: number,
	decode: (part: Uint8Array) => string,
): { values: unknown[]; end: number } | undefined {
	const values: unknown[] = [];
	at = skipSpace(bytes, at + 1);
	if (bytes[at] === CLOSE_ARRAY) return { values, end: at + 1 };
	for (;;) {
		const end = valueEnd(bytes, at);
		if (end < 0 || bytes[end] === CLOSE_OBJECT) return undefined;
		values.push(JSON.parse(decode(bytes.subarray(at, end))));
		if (bytes[end] === CLOSE_ARRAY) return { values, end: end + 1 };
		at = end + 1;
	}
}

/**
 * A list page's JSON, read record by record from its bytes: the same value as `JSON.parse` of
 * the whole text, without that text. Parsed whole, a page of 1,000 records is a string of over
 * a megabyte that is alive while its records are made, so it outlives V8's young generation and
 * stays in n8n's heap as garbage until a full collection (the HTTP Request node leaves the same,
 * once per page: issue 26); a record's text is a small string that dies young. Anything but a
 * JSON object with one "results" array (an HTML page, JSON cut short) is given back as text, to
 * be read as any other answer.
 */
export function parseListBody(bytes: Uint8Array): IDataObject | string {
	// as JSON.parse reads a decoded text: a byte order mark before it is not part of it
	const from = BOM.every((byte, i) => bytes[i] === byte) ? BOM.length : 0;
	try {
		const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
		const decode = (part: Uint8Array) => decoder.decode(part);
		let at = skipSpace(bytes, from);
		if (bytes[at] !== OPEN_OBJECT) return decodeText(bytes);
		let results: { values: unknown[]; start: number; end: number } | undefined;
		for (;;) {
			const keyStart = skipSpace(bytes, at + 1);
			const keyEnd = bytes[keyStart] === QUOTE ? stringEnd(bytes, keyStart) : -1;
			if (keyEnd < 0) return decodeText(bytes);
			const key = JSON.parse(decode(bytes.subarray(keyStart, keyEnd))) as string;
			const colon = skipSpace(bytes, keyEnd);
			if (bytes[colon] !== COLON) return decodeText(bytes);
			const start = skipSpace(bytes, colon + 1);
			if (key === 'results') {
				// a second "results" replaces the first, as with JSON.parse (the first stays in the rest)
				const array = bytes[start] === OPEN_ARRAY ? parseArray(bytes, start, decode) : undefined;
				if (!array) return decodeText(bytes);
				results = { values: array.values, start, end: array.end };
				at = skipSpace(bytes, array.end);
			} else {
				at = valueEnd(bytes, start);
			}
			if (bytes[at] === CLOSE_OBJECT) break;
			if (bytes[at] !== COMMA) return decodeText(bytes);
		}
		if (!results) return decodeText(bytes);
		// the rest of the page (`next`, ...) around an empty list: checks the whole is JSON
		const envelope = JSON.parse(
			`${decode(bytes.subarray(from, results.start))}[]${decode(bytes.subarray(results.end))}`,
		) as IDataObject;
		envelope.results = results.values as IDataObject[];
		return envelope;
	} catch {
		return decodeText(bytes);
	}
}
