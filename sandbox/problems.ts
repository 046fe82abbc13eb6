import { randomBytes } from 'node:crypto';
import type { FieldIssue } from '../nodes/shared/schema/validate';

/** What a handler answers; `server.ts` writes it out. */
export interface Reply {
	status: number;
	/** Sent as JSON. */
	body?: unknown;
	/** Sent as it is (a gateway's page); `contentType` says what it is. */
	rawBody?: string;
	headers?: Record<string, string>;
	contentType?: string;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** Thrown to stop handling a request with this reply (auth, body and validation failures). */
export class Answer extends Error {
	constructor(readonly reply: Reply) {
		super(`answered ${reply.status}`);
	}
}

/** A W3C trace-context id, the form the service uses in `extensions.traceId`. */
export const newTraceId = (): string =>
	`00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;

const RFC9110 = 'https://tools.ietf.org/html/rfc9110#section-15.5.';
const KINDS: Record<number, [string, string]> = {
	400: [
		'https://tools.ietf.org/html/rfc7231#section-6.5.1',
		'One or more validation errors occurred.',
	],
	401: [`${RFC9110}2`, 'Unauthorized'],
	403: [`${RFC9110}4`, 'Forbidden'],
	404: [`${RFC9110}5`, 'Not Found'],
	405: [`${RFC9110}6`, 'Method Not Allowed'],
	409: [`${RFC9110}10`, 'Conflict'],
	413: [`${RFC9110}14`, 'Content Too Large'],
	415: [`${RFC9110}16`, 'Unsupported Media Type'],
	429: ['https://tools.ietf.org/html/rfc6585#section-4', 'Too Many Requests'],
};

/** An RFC 7807 problem body in the service's shape (service-behaviour.md §7). */
export function problem(
	status: keyof typeof KINDS,
	details: { detail?: string; errors?: Record<string, string[]> } = {},
	headers?: Record<string, string>,
): Reply {
	const [type, title] = KINDS[status];
	const body = { type, title, status, ...details, extensions: { traceId: newTraceId() } };
	return { status, body, headers, contentType: PROBLEM_TYPE };
}

/** A 400 naming each bad field or parameter. */
export const invalid = (errors: Record<string, string[]>, detail?: string): Reply =>
	problem(400, detail === undefined ? { errors } : { detail, errors });

/** One bad parameter or field, as a thrown 400. */
export const badInput = (name: string, message: string): Answer =>
	new Answer(invalid({ [name]: [message] }));

/** Validation issues grouped by field path; the body itself is `$`. */
export function issuesToErrors(issues: readonly FieldIssue[]): Record<string, string[]> {
	const errors: Record<string, string[]> = {};
	for (const { path, message } of issues) (errors[path || '$'] ??= []).push(message);
	return errors;
}

export const notFound = (detail: string): Answer => new Answer(problem(404, { detail }));

/** The body the service sends for any server fault. */
export const serverFault = (status = 500): Reply => ({
	status,
	body: { type: 'Exception', message: 'An error has occurred' },
	contentType: JSON_TYPE,
});

/** The SCIM error body (RFC 7644 §3.12) used by the users interface. */
export function scimError(
	status: number,
	detail: string,
	scimType?: string,
	headers?: Record<string, string>,
): Reply {
	const body = {
		schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
		...(scimType ? { scimType } : {}),
		status: String(status),
		detail,
	};
	return { status, body, headers, contentType: JSON_TYPE };
}
