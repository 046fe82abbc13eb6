import type { IDataObject } from 'n8n-workflow';
import { isPlainObject } from '../schema/values';
import type { Failure } from './failure';

/**
 * What a successful call answers: a page of a list (`results`), a page of SCIM users
 * (`Resources`), one record (with its `id`), or nothing (DELETE). A 2xx answer of any other form
 * (a gateway's HTML maintenance page, JSON cut short, another service's JSON) is not the
 * service's, and is never read as "nothing there".
 */
export type AnswerShape = 'list' | 'users' | 'record' | 'none';

const EXPECTED: Record<AnswerShape, string> = {
	list: 'a JSON object with the list of records in "results"',
	users: 'a SCIM list response (a JSON object with "Resources")',
	record: 'the record as a JSON object with its "id"',
	none: 'an empty answer',
};

const isRecord = (value: unknown): boolean =>
	isPlainObject(value) && typeof value.id === 'string' && value.id !== '';

const everyRecord = (values: unknown): boolean => Array.isArray(values) && values.every(isRecord);

/** Whether a parsed JSON body is the shape a call expects. */
function fits(shape: AnswerShape, body: unknown): boolean {
	switch (shape) {
		case 'list':
			return (
				isPlainObject(body) &&
				everyRecord(body.results) &&
				// the last page has no `next`; `null` says the same (another version's JSON)
				(body.next === undefined || body.next === null || typeof body.next === 'string')
			);
		case 'users':
			return (
				isPlainObject(body) &&
				typeof body.totalResults === 'number' &&
				// RFC 7644 §3.4.2: Resources may be left out when there are none
				(body.Resources === undefined ? body.totalResults === 0 : everyRecord(body.Resources))
			);
		case 'record':
			return isRecord(body);
		case 'none':
			// no body; an empty object, or the deleted record, are read the same way
			return (
				body === undefined || (isPlainObject(body) && (isRecord(body) || !Object.keys(body).length))
			);
	}
}

const EXCERPT_LENGTH = 120;

/** The first characters of a body, on one line, for an error message. */
export function excerptOf(body: unknown): string {
	const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length > EXCERPT_LENGTH ? `${line.slice(0, EXCERPT_LENGTH)}…` : line;
}

/** A text body read as JSON, or left as text when it is not JSON; empty text is no body. */
function parseAnswer(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	if (body.trim() === '') return undefined;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

function contentTypeOf(headers: IDataObject | undefined): string | undefined {
	const value = headers?.['content-type'];
	return typeof value === 'string' && value ? value : undefined;
}

/**
 * Reads a 2xx answer as the call expects it: its JSON body, or the failure it is when it is not
 * what the call expects. `raw` is the answer as n8n's helper gave it: parsed JSON, or text.
 */
export function readAnswer(
	shape: AnswerShape,
	status: number | undefined,
	headers: IDataObject | undefined,
	raw: unknown,
): { body: IDataObject; failure?: undefined } | { failure: Failure } {
	const parsed = parseAnswer(raw);
	if (fits(shape, parsed)) return { body: (parsed ?? {}) as IDataObject };
	const contentType = contentTypeOf(headers);
	return {
		failure: {
			status,
			message: `unexpected answer${contentType ? ` (${contentType})` : ''}`,
			unexpected: { contentType, excerpt: excerptOf(raw ?? ''), expected: EXPECTED[shape] },
		},
	};
}
