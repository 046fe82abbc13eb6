import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Answer, JSON_TYPE, problem, scimError, type Reply } from './problems';
import type { Person } from './records/common';

/** Every scope the service knows (service-behaviour.md §1). */
export const ALL_SCOPES: readonly string[] = [
	'Assets.Read',
	'Assets.Write',
	'Contracts.Read',
	'Contracts.Write',
	'Users.Read',
	'Users.Write',
	'Apps.Read',
	'Apps.Users.Read',
	'People.Read',
	'People.Write',
	'AuditLog.Read',
	'Workflows.Read',
	'Workflows.Write',
	'offline_access',
];

/** A registered client app. */
export interface ClientApp {
	id: string;
	secret: string;
	scopes: readonly string[];
}

/** Who a valid token belongs to and what it may do. */
export interface Grant {
	client: ClientApp;
	scopes: ReadonlySet<string>;
	expiresAt: number;
}

/** The client app as the `{userId, name, email}` that records name in createdBy/lastModifiedBy. */
export function clientPerson(clientId: string): Person {
	const slug =
		clientId
			.toLowerCase()
			.replace(/[^a-z0-9.-]+/g, '-')
			.replace(/^-+|-+$/g, '') || 'client';
	return {
		userId: createHash('sha256').update(clientId).digest('hex').slice(0, 32),
		name: `${clientId} (API client)`,
		email: `${slug}@api-clients.stockroom.example`,
	};
}

const tokenError = (error: string): Reply => ({
	status: 400,
	body: { error },
	contentType: JSON_TYPE,
	headers: { 'Cache-Control': 'no-store' },
});

/** Issues and checks bearer tokens (OAuth 2.0 client credentials). */
/**
 * Token endpoint failures whose text carries secrets, as a misbehaving gateway or service may send
 * them: a 500 whose detail echoes the request (client secret included) next to a live token, and a
 * 400 whose description quotes a bearer token.
 */
export const LEAKY_TOKEN_FAULTS = ['echo500', 'quote400'] as const;
export type LeakyTokenFault = (typeof LEAKY_TOKEN_FAULTS)[number];

export class Authority {
	private readonly tokens = new Map<string, Grant>();
	private readonly revoked = new Set<string>();
	/** The next token requests fail this way, in order. */
	readonly leakyFaults: LeakyTokenFault[] = [];

	constructor(
		private readonly clients: readonly ClientApp[],
		private readonly ttlSeconds: number,
		private readonly now: () => number,
	) {}

	/** `POST /connect/token`: credentials as HTTP Basic or form fields. */
	tokenRequest(req: IncomingMessage, body: string): Reply {
		const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
		if (type !== '' && type !== 'application/x-www-form-urlencoded') {
			return tokenError('invalid_request');
		}
		const form = new URLSearchParams(body);
		const client = this.authenticateClient(req.headers.authorization, form);
		if (!client || this.revoked.has(client.id)) return tokenError('invalid_client');
		const leaky = this.leakyFaults.shift();
		if (leaky === 'echo500') {
			const detail = `Upstream failed for ${body} (authorization: ${req.headers.authorization ?? '-'}); last token: {"access_token":"${this.issue(client)}"}`;
			return {
				status: 500,
				body: { title: 'Internal Server Error', status: 500, detail },
				contentType: 'application/problem+json',
			};
		}
		if (leaky === 'quote400') {
			const description = `Bearer ${this.issue(client)} is not a client credential; client_secret=${client.secret}`;
			return {
				status: 400,
				body: { error: 'invalid_request', error_description: description },
				contentType: JSON_TYPE,
			};
		}
		if (form.get('grant_type') !== 'client_credentials') {
			return tokenError('unsupported_grant_type');
		}
		const requested = (form.get('scope') ?? '').split(' ').filter(Boolean);
		if (requested.some((scope) => !client.scopes.includes(scope))) {
			return tokenError('invalid_scope');
		}
		const scopes = requested.length ? [...new Set(requested)] : [...client.scopes];
		return {
			status: 200,
			body: {
				access_token: this.issue(client, scopes),
				expires_in: this.ttlSeconds,
				token_type: 'Bearer',
				scope: scopes.join(' '),
			},
			contentType: JSON_TYPE,
			headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
		};
	}

	/** A token for a client, as if requested at the token endpoint. */
	issue(client: ClientApp, scopes: readonly string[] = client.scopes): string {
		const now = this.now();
		if (this.tokens.size > 10_000) {
			for (const [token, grant] of this.tokens) {
				if (grant.expiresAt <= now) this.tokens.delete(token);
			}
		}
		const token = randomBytes(32).toString('base64url');
		this.tokens.set(token, {
			client,
			scopes: new Set(scopes),
			expiresAt: now + this.ttlSeconds * 1000,
		});
		return token;
	}

	/** Every token issued so far expires now, as when a token outlives its TTL. */
	expireAll(): void {
		const now = this.now();
		for (const grant of this.tokens.values()) grant.expiresAt = Math.min(grant.expiresAt, now);
	}

	/** The client app is deleted: its tokens stop working, and it gets no new one. */
	revoke(clientId: string): void {
		this.revoked.add(clientId);
	}

	findClient(id: string): ClientApp | undefined {
		return this.clients.find((client) => client.id === id);
	}

	/** The grant of the request's bearer token; throws 401 (no or bad token) or 403 (no scope). */
	authorize(req: IncomingMessage, scope: string, scim: boolean): Grant {
		const fail = (status: 401 | 403, detail: string, challenge?: string): Answer => {
			const headers = challenge === undefined ? undefined : { 'WWW-Authenticate': challenge };
			return new Answer(
				scim ? scimError(status, detail, undefined, headers) : problem(status, { detail }, headers),
			);
		};
		const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
		if (!match) {
			throw fail(401, 'Send an access token as "Authorization: Bearer <token>".', 'Bearer');
		}
		const grant = this.tokens.get(match[1]);
		if (!grant || this.revoked.has(grant.client.id)) {
			throw fail(
				401,
				'The access token is not valid.',
				'Bearer error="invalid_token", error_description="The access token is not valid"',
			);
		}
		if (grant.expiresAt <= this.now()) {
			const expired = new Date(grant.expiresAt).toISOString();
			throw fail(
				401,
				`The access token expired at ${expired}.`,
				`Bearer error="invalid_token", error_description="The token expired at '${expired}'"`,
			);
		}
		if (!grant.scopes.has(scope)) {
			throw fail(403, `The access token lacks the scope '${scope}' that this call needs.`);
		}
		return grant;
	}

	private authenticateClient(
		header: string | undefined,
		form: URLSearchParams,
	): ClientApp | undefined {
		const basic = /^Basic\s+(\S+)\s*$/i.exec(header ?? '');
		let id = form.get('client_id');
		let secret = form.get('client_secret');
		if (basic) {
			const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
			const colon = decoded.indexOf(':');
			if (colon < 0) return undefined;
			[id, secret] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
		}
		if (id === null || secret === null) return undefined;
		const client = this.findClient(id) ?? this.findClient(safeDecode(id));
		// RFC 6749 §2.3.1 form-encodes Basic credentials; most clients do not: accept both
		return client && (client.secret === secret || client.secret === safeDecode(secret))
			? client
			: undefined;
	}
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text.replace(/\+/g, ' '));
	} catch {
		return text;
	}
}
