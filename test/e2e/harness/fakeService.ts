import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A throwaway stand-in for the service (token endpoint + SCIM users), enough to prove n8n's
 * OAuth2 handling until test/sandbox exists. Records every request.
 */
export interface FakeServiceOptions {
	port?: number;
	clientId?: string;
	clientSecret?: string;
	/** Scopes the client may request (default: all the credential offers). */
	scopes?: string[];
	users?: number;
}

export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: IncomingMessage['headers'];
	body: string;
}

export interface FakeService {
	baseUrl: string;
	port: number;
	clientId: string;
	clientSecret: string;
	requests: RecordedRequest[];
	/** Switches for failure cases; change them between calls. */
	behaviour: { tokenNotFound?: boolean; apiStatus?: number };
	close(): Promise<void>;
}

const ALL_SCOPES = [
	'Assets.Read',
	'Assets.Write',
	'Contracts.Read',
	'Contracts.Write',
	'Users.Read',
];
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

function send(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
) {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

function demoUser(index: number) {
	const id = (index + 1).toString(16).padStart(24, '0');
	const givenName = `User${index + 1}`;
	return {
		schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
		id,
		userName: `user${index + 1}@example.com`,
		name: { givenName, familyName: 'Demo' },
		emails: [{ value: `user${index + 1}@example.com`, primary: true }],
		active: true,
	};
}

export async function startFakeService(options: FakeServiceOptions = {}): Promise<FakeService> {
	const clientId = options.clientId ?? 'stockroom-demo';
	const clientSecret = options.clientSecret ?? 'stockroom-demo-secret';
	const clientScopes = options.scopes ?? ALL_SCOPES;
	const users = Array.from({ length: options.users ?? 3 }, (_, i) => demoUser(i));
	const tokens = new Map<string, { scopes: string[]; expires: number }>();
	const requests: RecordedRequest[] = [];
	const behaviour: FakeService['behaviour'] = {};

	const token = (req: IncomingMessage, res: ServerResponse, body: string) => {
		const form = new URLSearchParams(body);
		const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
		const [id, secret] = basic
			? Buffer.from(basic[1], 'base64').toString().split(':')
			: [form.get('client_id'), form.get('client_secret')];
		if (id !== clientId || secret !== clientSecret) {
			return send(res, 400, { error: 'invalid_client' });
		}
		if (form.get('grant_type') !== 'client_credentials') {
			return send(res, 400, { error: 'unsupported_grant_type' });
		}
		const requested = (form.get('scope') ?? '').split(' ').filter(Boolean);
		if (requested.some((scope) => !clientScopes.includes(scope))) {
			return send(res, 400, { error: 'invalid_scope' });
		}
		const scopes = requested.length > 0 ? requested : clientScopes;
		const accessToken = randomBytes(32).toString('base64url');
		tokens.set(accessToken, { scopes, expires: Date.now() + 3600_000 });
		send(res, 200, {
			access_token: accessToken,
			expires_in: 3600,
			token_type: 'Bearer',
			scope: scopes.join(' '),
		});
	};

	const listUsers = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
		const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
		const grant = bearer ? tokens.get(bearer) : undefined;
		if (!grant || grant.expires < Date.now()) {
			return send(
				res,
				401,
				{ schemas: [SCIM_ERROR], status: '401', detail: 'Invalid token' },
				{
					'www-authenticate': 'Bearer error="invalid_token"',
				},
			);
		}
		if (behaviour.apiStatus) {
			return send(res, behaviour.apiStatus, {
				schemas: [SCIM_ERROR],
				status: String(behaviour.apiStatus),
				detail: 'Forced by the test',
			});
		}
		if (!grant.scopes.includes('Users.Read')) {
			return send(res, 403, {
				schemas: [SCIM_ERROR],
				status: '403',
				detail: 'Scope Users.Read required',
			});
		}
		const startIndex = Math.max(1, Number(query.get('startIndex') ?? 1));
		const count = Math.max(0, Number(query.get('count') ?? 100));
		const page = users.slice(startIndex - 1, startIndex - 1 + count);
		send(res, 200, {
			schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
			totalResults: users.length,
			startIndex,
			itemsPerPage: page.length,
			Resources: page,
		});
	};

	const server = createServer((req, res) => {
		let body = '';
		req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://localhost');
			requests.push({
				method: req.method ?? '',
				path: url.pathname,
				query: Object.fromEntries(url.searchParams),
				headers: req.headers,
				body,
			});
			if (req.method === 'POST' && url.pathname === '/connect/token' && !behaviour.tokenNotFound) {
				return token(req, res, body);
			}
			if (req.method === 'GET' && url.pathname === '/api/scim/v2/Users') {
				return listUsers(req, res, url.searchParams);
			}
			send(res, 404, { title: 'Not Found', status: 404 });
		});
	});
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		port,
		clientId,
		clientSecret,
		requests,
		behaviour,
		close: () =>
			new Promise<void>((resolve, reject) => {
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}
