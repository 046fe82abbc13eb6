import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALL_SCOPES, Authority, type ClientApp, type LeakyTokenFault } from './auth';
import { bodyOf, readBody } from './body';
import { Clock } from './clock';
import { Cursors } from './paging';
import { FaultInjector, faultReply, isReshapingFault, type FaultKind } from './faults';
import { Network, type NetworkProfile } from './network';
import { DataFile, loadDataFile } from './persistence';
import { Answer, JSON_TYPE, problem, scimError, serverFault, type Reply } from './problems';
import { Random } from './random';
import { reshape } from './reshape';
import { Router, type Match } from './router';
import { assetRoutes } from './routes/assets';
import { contractRoutes } from './routes/contracts';
import { userRoutes } from './routes/users';
import { seedContents } from './seed';
import { Store } from './store';

export const DEFAULT_CLIENT_ID = 'stockroom-demo';
export const DEFAULT_CLIENT_SECRET = 'stockroom-demo-secret';

export interface SandboxOptions {
	/** Default 0: a free port. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** The client registered with every scope. */
	clientId?: string;
	clientSecret?: string;
	/** More client apps, e.g. one with fewer scopes. */
	clients?: readonly ClientApp[];
	/** Assets to seed (about a fifth as many contracts); default: the demo set. */
	records?: number;
	/** Makes data and faults repeatable; default 1. */
	seed?: number;
	/** Token lifetime in seconds; default 3600. */
	tokenTtl?: number;
	/** How long (seconds, record clock) a next link's cursor stays valid; default for ever. */
	cursorTtl?: number;
	/** Random faults, e.g. `429:0.1,503:0.05,reset:0.02,slow:0.1`. */
	faults?: string;
	/** Keep state in this file (loaded at start, written within a second of each change). */
	dataFile?: string;
	/** The clock for record timestamps (tokens always expire in real time). */
	now?: () => Date;
	/** How far away the service seems: latency, bandwidth, compression (default: gzip on request). */
	network?: NetworkProfile;
	/** Where internal errors are reported; default: nowhere. */
	log?: (message: string) => void;
}

export interface SandboxStats {
	/** Requests per route, keyed like `GET /api/assets/v1/{id}`. */
	requests: Record<string, number>;
	totalRequests: number;
	/** Response body bytes sent (compressed, when they were). */
	bytesSent: number;
	/** The most API and token requests the sandbox was answering at one time. */
	maxInFlight: number;
	/** The faults API calls met, per kind. */
	faults: Partial<Record<FaultKind, number>>;
	/** TCP connections clients opened (a client that keeps connections alive opens few). */
	connections: number;
	/** API and token answers per HTTP status (`"401"`: refused tokens). */
	statuses: Record<string, number>;
	/** The requests it is answering now (a client that gave one up has closed it). */
	inFlight: number;
}

/** One request as the sandbox received it (the journal keeps the last 1,000). */
export interface JournalEntry {
	method: string;
	path: string;
	/** Query parameters, decoded; a repeated name keeps its last value. */
	query: Record<string, string>;
	/** The body as sent (JSON parsed when it is JSON), when the route read one. */
	body?: unknown;
	status?: number;
	/** The fault the call met, if any. */
	fault?: FaultKind;
}

export interface Sandbox {
	/** Base URL, e.g. `http://127.0.0.1:41234`. */
	readonly url: string;
	readonly port: number;
	/** The client registered with every scope. */
	readonly client: ClientApp;
	/** The data, changeable without HTTP (records with chosen timestamps, users). */
	readonly store: Store;
	/** An access token, as the token endpoint would issue it (default client, all its scopes). */
	token(scopes?: readonly string[], clientId?: string): string;
	stats(): SandboxStats;
	resetStats(): void;
	/** The API and token requests received since the last `resetStats()`, oldest first. */
	journal(): JournalEntry[];
	/** Replaces the random fault rates; '' turns every fault off, forced ones included. */
	setFaults(spec: string): void;
	/** After `after` more API calls pass, the next `count` fail with `kind` (before any random fault). */
	failNext(count: number, kind: FaultKind, after?: number): void;
	/**
	 * Deletes `share` (0 to 1) of the records of `resource`, picked from all over the id range by
	 * the seeded PRNG, as a retirement wave or a tenant's clean-up does; returns their ids.
	 */
	massDelete(resource: 'assets' | 'contracts', share: number): string[];
	/**
	 * Every token issued so far expires: now, or once each of `afterCalls` (counted from now) more
	 * API calls have come in (tokens that run out mid-run; 0 is now); the next API call with one gets
	 * a 401.
	 */
	expireTokens(...afterCalls: number[]): void;
	/**
	 * The client app is revoked (deleted at the service): its tokens stop working and the token
	 * endpoint refuses it (`invalid_client`).
	 */
	revokeClient(clientId: string): void;
	/** The next token request fails with a body that carries secrets (see LEAKY_TOKEN_FAULTS). */
	failTokenNext(kind: LeakyTokenFault): void;
	setClock(now: () => Date): void;
	/** Cursors older than this many seconds (record clock) are refused; undefined: never. */
	setCursorTtl(seconds: number | undefined): void;
	/** Back to the seeded data, no faults, zero stats. */
	reset(): void;
	/** Stops listening, drops connections, writes the data file. */
	close(): Promise<void>;
}

const isApiPath = (path: string): boolean => path.toLowerCase().startsWith('/api/');

/** Starts a sandbox in this process. */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const seed = options.seed ?? 1;
	const log = options.log ?? (() => undefined);
	const clock = new Clock(options.now);
	const store = new Store(clock, new Random(seed + 1));
	const client: ClientApp = {
		id: options.clientId ?? DEFAULT_CLIENT_ID,
		secret: options.clientSecret ?? DEFAULT_CLIENT_SECRET,
		scopes: ALL_SCOPES,
	};
	// tokens live in real time, so a test that moves the record clock keeps its token
	const authority = new Authority(
		[client, ...(options.clients ?? [])],
		options.tokenTtl ?? 3600,
		Date.now,
	);
	const faults = new FaultInjector(seed, options.faults);
	const deletions = new Random(seed ^ 0xde1e7e);
	const network = new Network(options.network);
	const cursors = new Cursors(clock, options.cursorTtl);
	const router = new Router([
		...assetRoutes({ store, clock, cursors }),
		...contractRoutes({ store, clock, cursors }),
		...userRoutes({ store, clock, cursors }),
		{
			method: 'POST',
			path: '/connect/token',
			handle: async ({ req }) => authority.tokenRequest(req, await readBody(req)),
		},
	]);
	const seeded = () => seedContents(seed, options.records);
	const dataFile =
		options.dataFile === undefined ? undefined : new DataFile(options.dataFile, store, log);
	if (!options.dataFile || !loadDataFile(options.dataFile, store)) store.load(seeded());
	if (dataFile) {
		store.onChange = () => dataFile.changed();
		dataFile.changed();
		await dataFile.flush();
	}

	const emptyStats = (): Omit<SandboxStats, 'inFlight'> => ({
		requests: {},
		totalRequests: 0,
		bytesSent: 0,
		maxInFlight: 0,
		faults: {},
		connections: 0,
		statuses: {},
	});
	let stats = emptyStats();
	let inFlight = 0;
	/** When every token expires (`expireTokens(...afterCalls)`): after so many API calls. */
	let expiries: number[] = [];
	let calls = 0;
	/** Requests whose answer is cut half-way through its body (the `cut` fault). */
	const cutShort = new WeakSet<IncomingMessage>();
	/** Requests whose JSON answer is sent whole but cut short as JSON (the `truncated` fault). */
	const truncated = new WeakSet<IncomingMessage>();
	let journal: JournalEntry[] = [];
	const JOURNAL_SIZE = 1000;
	const pendingDelays = new Set<NodeJS.Timeout>();
	const delay = (ms: number) =>
		new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				pendingDelays.delete(timer);
				resolve();
			}, ms);
			pendingDelays.add(timer);
		});

	async function send(req: IncomingMessage, res: ServerResponse, reply: Reply): Promise<void> {
		if (res.headersSent || res.destroyed) return;
		const entry = entries.get(req);
		if (entry) entry.status = reply.status;
		const headers: Record<string, string | number> = { ...reply.headers };
		let body: Buffer | undefined;
		let text = reply.rawBody ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body));
		if (text !== undefined && truncated.has(req)) text = text.slice(0, Math.ceil(text.length / 2));
		if (text !== undefined) {
			const encoded = await network.encode(req, Buffer.from(text));
			body = encoded.body;
			Object.assign(headers, encoded.headers);
			headers['Content-Type'] = reply.contentType ?? JSON_TYPE;
			headers['Content-Length'] = body.length;
			if (req.method !== 'HEAD') stats.bytesSent += body.length;
		}
		await network.delay();
		if (res.headersSent || res.destroyed) return;
		// the service's clock, which is the one a client can compare modification times with
		headers.Date = clock.now().toUTCString();
		res.writeHead(reply.status, headers);
		if (cutShort.has(req)) {
			// the call was carried out; its answer is lost on the way
			if (!body || req.method === 'HEAD') req.socket.destroy();
			else res.write(body.subarray(0, Math.floor(body.length / 2)), () => req.socket.destroy());
			return;
		}
		await network.write(res, req.method === 'HEAD' ? undefined : body);
	}

	const entries = new WeakMap<IncomingMessage, JournalEntry>();
	function remember(req: IncomingMessage, url: URL): JournalEntry {
		const entry: JournalEntry = {
			method: req.method ?? 'GET',
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
		};
		entries.set(req, entry);
		journal.push(entry);
		if (journal.length > JOURNAL_SIZE) journal = journal.slice(-JOURNAL_SIZE);
		return entry;
	}

	function withBody(req: IncomingMessage, entry: JournalEntry): void {
		// the journal is for assertions about requests; it never keeps a client secret
		const text = bodyOf(req)?.replace(/(client_secret=)[^&]*/g, '$1[redacted]');
		if (text === undefined || text === '') return;
		try {
			entry.body = JSON.parse(text);
		} catch {
			entry.body = text;
		}
	}

	async function answer(req: IncomingMessage, url: URL, match: Match): Promise<Reply | undefined> {
		const scim = url.pathname.toLowerCase().startsWith('/api/scim/');
		const fault = isApiPath(url.pathname) ? faults.next() : undefined;
		if (fault) {
			const entry = entries.get(req);
			if (entry) entry.fault = fault;
			stats.faults[fault] = (stats.faults[fault] ?? 0) + 1;
			if (fault === 'reset') {
				req.socket.destroy();
				return undefined;
			}
			if (fault === 'hang') {
				await new Promise((resolve) => req.socket.once('close', resolve));
				return undefined;
			}
			if (fault === 'cut') cutShort.add(req);
			else if (fault === 'truncated') truncated.add(req);
			else if (fault === 'slow') await delay(faults.slowDelay());
			else if (fault && !isReshapingFault(fault)) return faultReply(fault);
		}
		if (match.kind === 'none') {
			const detail = `There is no ${req.method} ${url.pathname} in this service.`;
			return scim ? scimError(404, detail) : problem(404, { detail });
		}
		if (match.kind === 'wrongMethod') {
			const allow = match.allowed.join(', ');
			const detail = `${url.pathname} does not support ${req.method}; it supports ${allow}.`;
			return scim
				? scimError(405, detail, undefined, { Allow: allow })
				: problem(405, { detail }, { Allow: allow });
		}
		const { route, params } = match;
		if (route.scope === undefined) return route.handle({ req, url, params });
		if (expiries.length) {
			calls++;
			if (calls > expiries[0]) {
				while (calls > expiries[0]) expiries.shift();
				authority.expireAll();
			}
		}
		const grant = authority.authorize(req, route.scope, route.scim === true);
		const reply = await route.handle({ req, url, params, grant });
		return fault && isReshapingFault(fault)
			? reshape(fault, reply, { req, url, cursors, pick: (values) => faults.pick(values) })
			: reply;
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = parseUrl(req.url);
		const match = router.match(req.method ?? 'GET', url.pathname);
		stats.requests[match.name] = (stats.requests[match.name] ?? 0) + 1;
		stats.totalRequests++;
		stats.maxInFlight = Math.max(stats.maxInFlight, ++inFlight);
		res.once('close', () => inFlight--);
		const entry = remember(req, url);
		let reply: Reply | undefined;
		try {
			reply = await answer(req, url, match);
		} catch (error) {
			if (error instanceof Answer) reply = error.reply;
			else if (req.destroyed && !req.complete)
				return; // the client went away mid-body
			else {
				log(
					`internal error on ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`,
				);
				reply = serverFault();
			}
		} finally {
			withBody(req, entry);
		}
		if (!reply) return;
		stats.statuses[reply.status] = (stats.statuses[reply.status] ?? 0) + 1;
		await send(req, res, reply);
	}

	const server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => log(`could not answer: ${String(error)}`));
	});
	server.on('connection', () => stats.connections++);
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { address, port } = server.address() as AddressInfo;

	return {
		url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
		port,
		client,
		store,
		token: (scopes, clientId = client.id) => {
			const app = authority.findClient(clientId);
			if (!app) throw new Error(`no client app '${clientId}'`);
			return authority.issue(app, scopes);
		},
		stats: () => ({ ...structuredClone(stats), inFlight }),
		resetStats: () => {
			stats = emptyStats();
			journal = [];
		},
		journal: () => structuredClone(journal),
		setFaults: (spec) => (spec.trim() === '' ? faults.clear() : faults.set(spec)),
		failNext: (count, kind, after) => faults.failNext(count, kind, after),
		massDelete: (resource, share) => store[resource].deleteWhere(() => deletions.chance(share)),
		expireTokens: (...afterCalls) => {
			// no count, or a count of 0: now
			if (!afterCalls.length || afterCalls.some((count) => count <= 0)) authority.expireAll();
			expiries = afterCalls.filter((count) => count > 0).sort((a, b) => a - b);
			calls = 0;
		},
		revokeClient: (clientId) => authority.revoke(clientId),
		failTokenNext: (kind) => authority.leakyFaults.push(kind),
		setClock: (now) => clock.set(now),
		setCursorTtl: (seconds) => (cursors.ttlSeconds = seconds),
		reset: () => {
			store.load(seeded());
			faults.clear();
			expiries = [];
			stats = emptyStats();
			journal = [];
		},
		close: async () => {
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			for (const timer of pendingDelays) clearTimeout(timer);
			pendingDelays.clear();
			await closed;
			await dataFile?.close();
		},
	};
}

/** The request target as a URL; origin-form paths only (anything else reads as `/`). */
function parseUrl(target: string | undefined): URL {
	try {
		return new URL(target?.startsWith('/') ? `http://sandbox${target}` : '/', 'http://sandbox');
	} catch {
		return new URL('http://sandbox/');
	}
}
