import type { IncomingMessage } from 'node:http';
import type { Grant } from './auth';
import type { Clock } from './clock';
import type { Cursors } from './paging';
import type { Reply } from './problems';
import type { Store } from './store';

/** What every route factory gets. */
export interface SandboxContext {
	store: Store;
	clock: Clock;
	cursors: Cursors;
}

export interface PublicRequest {
	req: IncomingMessage;
	url: URL;
	params: Record<string, string>;
}

export interface ApiRequest extends PublicRequest {
	grant: Grant;
}

interface RouteBase {
	method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
	/** Like `/api/assets/v1/{id}`; literal segments match case-insensitively. */
	path: string;
}

/** A route that needs a bearer token with `scope`. */
export interface ApiRoute extends RouteBase {
	scope: string;
	/** Errors use the SCIM error body. */
	scim?: boolean;
	handle(request: ApiRequest): Reply | Promise<Reply>;
}

/** A route without a token (the token endpoint). */
export interface PublicRoute extends RouteBase {
	scope?: undefined;
	handle(request: PublicRequest): Reply | Promise<Reply>;
}

export type Route = ApiRoute | PublicRoute;

export type Match =
	| { kind: 'route'; route: Route; params: Record<string, string>; name: string }
	| { kind: 'wrongMethod'; allowed: string[]; name: string }
	| { kind: 'none'; name: string };

const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);

function decode(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/** Matches method and path; the most literal pattern wins (`customfields` over `{id}`). */
export class Router {
	private readonly patterns: Array<{
		path: string;
		segments: string[];
		literals: number;
		routes: Route[];
	}> = [];

	constructor(routes: readonly Route[]) {
		for (const route of routes) {
			let pattern = this.patterns.find((candidate) => candidate.path === route.path);
			if (!pattern) {
				const segments = segmentsOf(route.path);
				const literals = segments.filter((segment) => !segment.startsWith('{')).length;
				pattern = { path: route.path, segments, literals, routes: [] };
				this.patterns.push(pattern);
			}
			pattern.routes.push(route);
		}
		this.patterns.sort((a, b) => b.literals - a.literals);
	}

	match(method: string, pathname: string): Match {
		const segments = segmentsOf(pathname);
		for (const pattern of this.patterns) {
			const params = matchSegments(pattern.segments, segments);
			if (!params) continue;
			const name = `${method} ${pattern.path}`;
			const wanted = method === 'HEAD' ? 'GET' : method;
			const route = pattern.routes.find((candidate) => candidate.method === wanted);
			if (route) return { kind: 'route', route, params, name };
			return {
				kind: 'wrongMethod',
				allowed: pattern.routes.map((candidate) => candidate.method),
				name,
			};
		}
		return { kind: 'none', name: `${method} (no route)` };
	}
}

function matchSegments(
	pattern: readonly string[],
	segments: readonly string[],
): Record<string, string> | undefined {
	if (pattern.length !== segments.length) return undefined;
	const params: Record<string, string> = {};
	for (let i = 0; i < pattern.length; i++) {
		if (pattern[i].startsWith('{')) params[pattern[i].slice(1, -1)] = decode(segments[i]);
		else if (pattern[i].toLowerCase() !== segments[i].toLowerCase()) return undefined;
	}
	return params;
}
