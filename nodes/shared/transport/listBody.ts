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

/**
 * Records parsed together, as one text of this many bytes or a record more: under 128 kB a text
 * is an ordinary young object that dies young (a longer one is a V8 large object, which outlives
 * the young generation), and few, long texts keep the calls to JSON.parse and the bytes read one
 * by one few.
 */
const GROUP_BYTES = 110 * 1024;

/**
 * The `,` of the first `},{` from `at` on: most likely the end of a record and the start of the
 * next, found without reading every byte (it may be inside a string or a record's own list);
 * -1 when there is none. The last answer is remembered: a page with no `},{` after some point
 * (pretty-printed JSON has none at all) is searched to its end once, not once per group.
 */
function likelyRecordEnds(bytes: Uint8Array): (at: number) => number {
	// the last search began at `from` and found `found` (the first `}` of it at `found - 1`)
	let from = Infinity;
	let found = -1;
	return (at) => {
		if (at >= from && (found < 0 || at < found)) return found;
		from = at;
		found = -1;
		for (let close = bytes.indexOf(CLOSE_OBJECT, at); close >= 0;) {
			if (bytes[close + 1] === COMMA && bytes[close + 2] === OPEN_OBJECT) {
				found = close + 1;
				break;
			}
			close = bytes.indexOf(CLOSE_OBJECT, close + 1);
		}
		return found;
	};
}

/** The elements from `group` to the element list's end or a `,` (exclusive), as one array. */
function parseGroup(
	bytes: Uint8Array,
	group: number,
	end: number,
	decode: (part: Uint8Array) => string,
): unknown[] {
	return JSON.parse(`[${decode(bytes.subarray(group, end))}]`) as unknown[];
}

/**
 * The elements of the array whose `[` is at `at`, parsed a group at a time, and where it ends.
 * A group ends at a likely record end about GROUP_BYTES on; when what precedes it is not a list
 * of whole values (that `},{` was inside a string or a record), the group's elements are found
 * one by one instead. Either way the groups, with the commas between them, are the array: each
 * parses alone only when that comma is between two of its elements.
 */
function parseArray(
	bytes: Uint8Array,
	at: number,
	decode: (part: Uint8Array) => string,
): { values: unknown[]; end: number } | undefined {
	const values: unknown[] = [];
	const likelyRecordEnd = likelyRecordEnds(bytes);
	at = skipSpace(bytes, at + 1);
	if (bytes[at] === CLOSE_ARRAY) return { values, end: at + 1 };
	for (let group = at; ;) {
		let end = likelyRecordEnd(group + GROUP_BYTES);
		let parsed: unknown[] | undefined;
		try {
			parsed = end < 0 ? undefined : parseGroup(bytes, group, end, decode);
		} catch {
			parsed = undefined;
		}
		if (!parsed) {
			for (end = group; ; end++) {
				end = valueEnd(bytes, end);
				if (end < 0 || bytes[end] === CLOSE_OBJECT) return undefined;
				if (bytes[end] === CLOSE_ARRAY || end - group >= GROUP_BYTES) break;
			}
			parsed = parseGroup(bytes, group, end, decode);
		}
		for (const value of parsed) values.push(value);
		if (bytes[end] === CLOSE_ARRAY) return { values, end: end + 1 };
		group = end + 1;
	}
}

/**
 * A list page's JSON, read from its bytes a group of records at a time: the same value as
 * `JSON.parse` of the whole text, without that text. Parsed whole, a page of 1,000 records is a
 * string of over a megabyte that is alive while its records are made, so it outlives V8's young
 * generation and stays in n8n's heap as garbage until a full collection (the HTTP Request node
 * leaves the same, once per page: issue 26). Anything but a JSON object with a "results" array
 * (an HTML page, JSON cut short) is given back as text, to be read as any other answer.
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
