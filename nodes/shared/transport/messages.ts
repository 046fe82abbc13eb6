import { excerptOf } from './answers';
import type { Failure, Problem } from './failure';

const attempts = (count: number) => (count === 1 ? '1 attempt' : `${count} attempts`);
const tried = (call: { attempts: number }) =>
	call.attempts > 1 ? ` Tried ${call.attempts} times.` : '';

interface CallDetails {
	operation: string;
	method: string;
	path: string;
	baseUrl: string;
	attempts: number;
	/** How long each attempt waited for an answer. */
	timeoutMs: number;
}

/** The scope the service wants for a call (reads `*.Read`, writes `*.Write`, users `Users.Read`). */
export function requiredScope(method: string, path: string): string {
	const area = /\/api\/scim\//.test(path)
		? 'Users'
		: /\/api\/contracts\//.test(path)
			? 'Contracts'
			: 'Assets';
	return area === 'Users' || method === 'GET' ? `${area}.Read` : `${area}.Write`;
}

function problemLines(problem: Problem, failure: Failure): string[] {
	const lines: string[] = [];
	if (problem.detail) lines.push(problem.detail);
	for (const [field, messages] of Object.entries(problem.errors ?? {})) {
		for (const message of messages) lines.push(`${field || 'request'}: ${message}`);
	}
	const facts = [
		failure.status !== undefined ? `HTTP ${failure.status}` : undefined,
		problem.scimType ? `scimType ${problem.scimType}` : undefined,
		problem.traceId ? `trace ID ${problem.traceId}` : undefined,
	].filter(Boolean);
	if (facts.length) lines.push(`(${facts.join(', ')})`);
	// not the service's JSON: a gateway's or proxy's page says more than its status
	if (!problem.isServiceAnswer && failure.body !== undefined) lines.push(foreignAnswer(failure));
	return lines;
}

/** What a body that is not the service's began with, and its content type. */
function foreignAnswer(failure: Failure): string {
	const type = failure.contentType ? ` (${failure.contentType})` : '';
	return `The answer${type} began: ${excerptOf(failure.body)}`;
}

/**
 * SCIM errors a person can act on (RFC 7644 §3.12): what happened, in words, and what to do. The
 * server's own `detail` follows in the message.
 */
const SCIM_ERRORS: Record<string, { what: string; advice: string }> = {
	invalidFilter: {
		what: 'the server refused the filter',
		advice:
			'The server could not read the filter, or does not support an attribute or operator in it. Check the Filter Expression (or the conditions), try a simpler filter (one attribute with eq), or see which filters the server supports.',
	},
	tooMany: {
		what: 'the filter matches more users than the server is willing to return',
		advice: 'Narrow the filter (more conditions, or more precise values) so fewer users match.',
	},
	uniqueness: {
		what: 'a value that must be unique is already in use',
		advice:
			'Another user already holds a value that must be unique (such as the userName or externalId): use another value, or change the user that holds it.',
	},
};

/** A SCIM error of a client mistake (400, 409, 413, ...): its kind and detail in the message. */
function describeScimError(
	failed: string,
	failure: Failure,
	problem: Problem,
): { message: string; description: string } {
	const known = problem.scimType ? SCIM_ERRORS[problem.scimType] : undefined;
	const what =
		known?.what ??
		(failure.status === 409 ? 'the server reported a conflict' : 'the server refused the request');
	const kind = problem.scimType ? ` (${problem.scimType})` : '';
	const detail = problem.detail ? `: ${problem.detail}` : '';
	const facts = problemLines({ ...problem, detail: undefined }, failure);
	return {
		message: `${failed}: ${what}${kind}${detail}`,
		description: [known?.advice, ...facts].filter(Boolean).join('\n'),
	};
}

const GATEWAY_ADVICE =
	"Something between n8n and the service (a gateway, a proxy, a maintenance page) may have answered instead: check the credential's Base URL and whether the service is up.";

/** A message and description a person can act on; never a token, secret or header. */
export function describeFailure(
	failure: Failure,
	problem: Problem,
	call: CallDetails,
): { message: string; description: string } {
	const failed = `Could not ${call.operation}`;
	const facts = problemLines(problem, failure).join('\n');
	const tokenError =
		failure.tokenError ?? (failure.message.includes('access token') ? problem.error : undefined);
	if (tokenError === 'invalid_client') {
		return {
			message: `${failed}: the service rejected the client ID or client secret (invalid_client)`,
			description: 'Open the Stockroom credential and check Client ID and Client Secret.',
		};
	}
	if (tokenError === 'invalid_scope') {
		return {
			message: `${failed}: the service refused the requested scopes (invalid_scope)`,
			description:
				"Select only scopes the client app was granted in the credential's Scopes, or select none to receive every scope the app has.",
		};
	}
	if (tokenError || /access token/i.test(failure.message)) {
		return {
			message: `${failed}: no access token could be obtained from ${call.baseUrl}/connect/token`,
			description:
				`${failure.message.replace(/^.*?access token:?\s*/i, '')}\nCheck the credential's Base URL.`.trim(),
		};
	}
	if (failure.unexpected) {
		const { contentType, excerpt, expected } = failure.unexpected;
		const what = [failure.status !== undefined ? `HTTP ${failure.status}` : '', contentType ?? '']
			.filter(Boolean)
			.join(', ');
		return {
			message: `${failed}: the answer is not the service's${what ? ` (${what})` : ''}: ${excerpt || 'an empty body'}`,
			description: `Expected ${expected}. ${GATEWAY_ADVICE}${tried(call)}`,
		};
	}
	if (failure.status === undefined) {
		const timedOut =
			failure.code === 'ECONNABORTED' ||
			failure.code === 'ETIMEDOUT' ||
			/timeout/i.test(failure.message);
		const reason = timedOut
			? `the service did not answer within ${Math.round(call.timeoutMs / 1000)} s`
			: failure.code === 'ECONNREFUSED'
				? 'the connection was refused'
				: failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN'
					? 'the host name could not be resolved'
					: failure.code
						? `the connection failed (${failure.code})`
						: failure.message;
		return {
			message: `${failed}: ${reason} at ${call.baseUrl}`,
			description: `Check the credential's Base URL and that the service is reachable from n8n.${tried(call)}`,
		};
	}
	if (failure.status >= 300 && failure.status < 400) return describeRedirect(failed, failure, call);
	if (
		problem.scim &&
		failure.status >= 400 &&
		failure.status < 500 &&
		![401, 403, 404, 429].includes(failure.status)
	) {
		return describeScimError(failed, failure, problem);
	}
	switch (failure.status) {
		case 400:
		case 409:
		case 422:
			return {
				message: `${failed}: ${problem.title ?? 'the service rejected the request'}`,
				description: facts,
			};
		case 401:
			return {
				message: `${failed}: the service did not accept the access token (HTTP 401)`,
				description:
					"n8n fetched a new token and tried again. Check that the credential's Base URL is the service that issued the token and that the client app is still active.",
			};
		case 403: {
			const scope = requiredScope(call.method, call.path);
			return {
				message: `${failed}: the credential lacks the ${scope} scope (HTTP 403)`,
				description:
					`Grant ${scope} to the client app and select it in the credential's Scopes.\n${facts}`.trim(),
			};
		}
		case 404:
			return problem.isServiceAnswer
				? { message: `${failed}: it was not found (HTTP 404)`, description: facts }
				: {
						message: `${failed}: the address was not found (HTTP 404), and the answer is not the service's`,
						description: `${facts}\n${GATEWAY_ADVICE}`,
					};
		case 429:
			return {
				message: `${failed}: the service is still rate limiting after ${attempts(call.attempts)} (HTTP 429)`,
				description:
					`Lower the workflow's request rate or raise the node's retry settings (Options > Max Retry Wait).\n${facts}`.trim(),
			};
		default:
			return {
				message: `${failed}: the service answered HTTP ${failure.status}${problem.title ? ` (${problem.title})` : ''}${call.attempts > 1 ? ` after ${attempts(call.attempts)}` : ''}`,
				description: facts,
			};
	}
}

/**
 * A redirect, which requests do not follow (a followed write could land where the credential does
 * not point, carrying its token): where it points, and the Base URL that would avoid it.
 */
function describeRedirect(
	failed: string,
	failure: Failure,
	call: CallDetails,
): { message: string; description: string } {
	const target = failure.location ? redirectBase(failure.location, call) : undefined;
	const where = failure.location ? ` to ${failure.location}` : ' with no Location';
	return {
		message: `${failed}: the service answered HTTP ${failure.status}, a redirect${where}, which is not followed`,
		description: target
			? `The service answers at ${target}: set the credential's Base URL to it.`
			: "Set the credential's Base URL to the address the service answers at (no redirect in between).",
	};
}

/** The Base URL a redirect implies: its target less the path the call asked for, when it ends so. */
function redirectBase(location: string, call: CallDetails): string | undefined {
	let target: URL;
	try {
		target = new URL(location, `${call.baseUrl}${call.path}`);
	} catch {
		return undefined;
	}
	const path = target.pathname.replace(/\/+$/, '');
	const asked = call.path.replace(/[?#].*$/, '').replace(/\/+$/, '');
	if (asked === '' || !path.toLowerCase().endsWith(asked.toLowerCase())) return undefined;
	return `${target.origin}${path.slice(0, path.length - asked.length)}`;
}

/** What a secret looks like in text a service or gateway may send back. */
const SECRET_PATTERNS: Array<[RegExp, string]> = [
	// "access_token": "...", client_secret=..., password: ...
	[
		/((?:access|refresh|id)_token|client_secret|password|api[_-]?key|secret)("?\s*[:=]\s*"?)[^\s"&,;}]+/gi,
		'$1$2[redacted]',
	],
	[/\b(Bearer|Basic)\s+[\w.~+/=-]{8,}/gi, '$1 [redacted]'],
	// JSON Web Tokens
	[/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, '[redacted]'],
];

/** Text from upstream with anything that looks like a token or a secret replaced. */
export function redactSecrets(text: string): string {
	return SECRET_PATTERNS.reduce(
		(result, [pattern, replacement]) => result.replace(pattern, replacement),
		text,
	);
}
