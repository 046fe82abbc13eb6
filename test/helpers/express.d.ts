/**
 * The little of Express (a dev dependency that ships no types) the SCIMMY test server uses: an
 * app, routers, the form-body parser. scimmy-routers' own types import their `Router` from here.
 */
declare module 'express' {
	import type { IncomingMessage, Server, ServerResponse } from 'node:http';

	export interface Request extends IncomingMessage {
		query: Record<string, unknown>;
		params: Record<string, string>;
		body?: unknown;
		path: string;
	}

	export interface Response extends ServerResponse {
		status(code: number): Response;
		json(body: unknown): Response;
		send(body?: unknown): Response;
	}

	export type NextFunction = (error?: unknown) => void;
	export type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

	export interface Router {
		use(...handlers: Array<string | Handler | Router>): Router;
		get(path: string, ...handlers: Handler[]): Router;
		post(path: string, ...handlers: Handler[]): Router;
	}

	export interface Application extends Router {
		listen(port: number, host: string, callback: () => void): Server;
	}

	interface Express {
		(): Application;
		urlencoded(options: { extended: boolean }): Handler;
	}

	const express: Express;
	export default express;
}
