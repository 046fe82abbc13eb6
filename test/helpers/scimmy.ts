import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Handler, type Request } from 'express';
import { SCIMMY, SCIMMYRouters } from 'scimmy-routers';
import type { CredentialInput } from '../../sandbox/credential';
import { recordCall, type RecordedCall } from './recorder';

/**
 * A SCIM 2.0 server nobody here wrote: SCIMMY and its Express routers (RFC 7643/7644), the users
 * kept in memory and filtered by SCIMMY's own `Filter.match`, behind a small OAuth2
 * client-credentials token endpoint at `/connect/token` (as the credential expects), all on
 * 127.0.0.1. What SCIMMY does is SCIMMY's; the tests say where it departs from RFC 7644.
 */

export type ScimmyUser = Record<string, unknown> & { id: string; userName: string };

export interface ScimmyOptions {
	/**
	 * scimmy-routers as shipped, on Express 5: it casts `startIndex` and `count` by assigning to
	 * `req.query`, which Express 5 recomputes on every read, so SCIMMY never sees them and answers
	 * the first 20 users to every page. Without this, the server makes `req.query` assignable first
	 * (what a SCIMMY server on Express 5 needs to page).
	 */
	pagingAsShipped?: boolean;
	/** Refuse filters with `or` (400 invalidFilter), as servers that only combine with `and` do. */
	refuseOr?: boolean;
	/** Refuse a filter matching more users than this (tooMany, RFC 7644 §3.12; SCIMMY sends 413). */
	maxResults?: number;
}

/** One request the server received. */
/** A request SCIMMY received, as the recorder notes one. */
export type ScimmyCall = RecordedCall;

export interface ScimmyServer {
	/** The credential's Base URL: the users are at `${url}/api/scim/v2/Users`. */
	readonly url: string;
	readonly credential: CredentialInput;
	/** The users, in the server's order; change them freely (`reset` restores the seed). */
	users: ScimmyUser[];
	/** The requests since the last `reset` (the token endpoint's included). */
	calls(): ScimmyCall[];
	reset(): void;
	close(): Promise<void>;
}

export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** What a request is answered with: the server it reached. */
interface Context {
	users: ScimmyUser[];
	options: ScimmyOptions;
}

let declared = false;

/** SCIMMY's resources are process-wide: declared once, each request handled by its own server. */
function declareUsers(): void {
	if (declared) return;
	declared = true;
	SCIMMY.Resources.declare(SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false));
	SCIMMY.Resources.User.egress(
		(resource: InstanceType<typeof SCIMMY.Resources.User>, context: Context) => {
			const { users, options } = context;
			if (resource.id !== undefined) {
				const user = users.find((candidate) => candidate.id === resource.id);
				if (!user) throw new SCIMMY.Types.Error(404, null!, `Resource ${resource.id} not found`);
				return user;
			}
			const filter = resource.filter;
			if (options.refuseOr && filter && filter.length > 1) {
				throw new SCIMMY.Types.Error(400, 'invalidFilter', "Filters with 'or' are not supported");
			}
			const matching = filter ? filter.match(users) : users;
			if (options.maxResults !== undefined && matching.length > options.maxResults) {
				// SCIMMY allows tooMany with 413 only (RFC 7644 §3.12 lists it under 400)
				throw new SCIMMY.Types.Error(
					413,
					'tooMany',
					`The filter matches ${matching.length} users; this server returns at most ${options.maxResults}`,
				);
			}
			return matching;
		},
	);
}

/** Starts a SCIMMY server on 127.0.0.1 with these users (copied; `reset` restores them). */
export async function createScimmyServer(
	seed: readonly ScimmyUser[],
	options: ScimmyOptions = {},
): Promise<ScimmyServer> {
	declareUsers();
	const client = { id: 'scimmy-client', secret: randomBytes(16).toString('hex') };
	const tokens = new Set<string>();
	// JSON, not structuredClone: objects of this realm, which SCIMMY's `instanceof Object` knows
	const copy = () => JSON.parse(JSON.stringify(seed)) as ScimmyUser[];
	let journal: ScimmyCall[] = [];
	const context: Context = { users: copy(), options };

	const app = express();
	app.use(((req, res, next) => {
		recordCall(req, res, journal);
		next();
	}) as Handler);

	app.post('/connect/token', express.urlencoded({ extended: false }), ((req, res) => {
		const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
		const [id, secret] =
			scheme === 'Basic'
				? Buffer.from(encoded ?? '', 'base64')
						.toString()
						.split(':')
				: [];
		const form = (req.body ?? {}) as Record<string, string>;
		if (id !== client.id || secret !== client.secret) {
			res.status(400).json({ error: 'invalid_client' });
		} else if (form.grant_type !== 'client_credentials') {
			res.status(400).json({ error: 'unsupported_grant_type' });
		} else {
			const token = randomBytes(24).toString('hex');
			tokens.add(token);
			res.json({ access_token: token, token_type: 'Bearer', expires_in: 3600 });
		}
	}) as Handler);

	if (!options.pagingAsShipped) {
		app.use('/api/scim/v2', ((req, _res, next) => {
			Object.defineProperty(req, 'query', {
				value: { ...req.query },
				writable: true,
				enumerable: true,
				configurable: true,
			});
			next();
		}) as Handler);
	}
	app.use(
		'/api/scim/v2',
		new SCIMMYRouters({
			type: 'oauth',
			handler: (req: Request) => {
				const [scheme, token] = (req.headers.authorization ?? '').split(' ');
				if (scheme !== 'Bearer' || !tokens.has(token ?? ''))
					throw new Error('The access token is missing or not valid');
				return 'api-client';
			},
			context: () => context,
		}),
	);

	const server: Server = await new Promise((resolve) => {
		const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
	});
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		credential: { baseUrl: url, clientId: client.id, clientSecret: client.secret },
		get users() {
			return context.users;
		},
		set users(users: ScimmyUser[]) {
			context.users = users;
		},
		calls: () => journal.map((call) => ({ ...call })),
		reset: () => {
			context.users = copy();
			journal = [];
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

const GIVEN = ['Grace', 'Ada', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Frances'];
const FAMILY = ['Turing', 'Hopper', 'Lovelace', 'Liskov', 'Knuth', 'Hamilton', 'Allen', 'Dijkstra'];
const DEPARTMENTS = ['Finance', 'Engineering', 'Sales', 'Legal'];
const TITLES = ['Engineer', 'Analyst', 'Manager', 'Designer'];

/** A UUID made from a number: the IDs are a server's own, not 32 hex digits. */
const uuid = (n: number): string => {
	const hex = (n * 2654435761 + 0x9e3779b9).toString(16).padStart(12, '0').slice(-12);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(1, 4)}-8${hex.slice(4, 7)}-${hex}`;
};

/**
 * `count` users as a directory holds them: every fifth one's userName is a directory login (its
 * address only in `emails`), every third has an `externalId`, every other one the enterprise
 * extension's department, some are inactive; ids are UUIDs.
 */
export function seedScimmyUsers(count: number, domain = 'example.org'): ScimmyUser[] {
	return Array.from({ length: count }, (_, i) => {
		const givenName = GIVEN[i % GIVEN.length];
		const familyName = FAMILY[(i * 5) % FAMILY.length];
		const address = `${givenName}.${familyName}.${i}@${domain}`.toLowerCase();
		const login = i % 5 === 1;
		const enterprise = i % 2 === 0;
		const created = Date.UTC(2024, 0, 1) + i * 86_400_000;
		return {
			schemas: enterprise ? [CORE_USER, ENTERPRISE_USER] : [CORE_USER],
			id: uuid(i + 1),
			...(i % 3 === 0 ? { externalId: `HR-${1000 + i}` } : {}),
			userName: login ? `${givenName[0]}${familyName}${i}`.toLowerCase() : address,
			name: { formatted: `${givenName} ${familyName}`, givenName, familyName },
			displayName: `${givenName} ${familyName}`,
			title: TITLES[i % TITLES.length],
			active: i % 9 !== 4,
			emails: [{ value: address, type: 'work', primary: true }],
			...(enterprise
				? { [ENTERPRISE_USER]: { department: DEPARTMENTS[(i / 2) % DEPARTMENTS.length] } }
				: {}),
			meta: {
				resourceType: 'User',
				created: new Date(created).toISOString(),
				lastModified: new Date(created + 3_600_000).toISOString(),
			},
		};
	});
}
