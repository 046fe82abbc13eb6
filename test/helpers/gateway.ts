import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../sandbox/server';

/** What the gateway answers instead of the service, for the next API calls. */
export interface GatewayReply {
	status: number;
	contentType: string;
	body: string;
	/** More headers (a redirect's `Location`). */
	headers?: Record<string, string>;
}

export interface Gateway {
	/** The base URL a credential uses: the gateway's address and the path it serves under. */
	url: string;
	/**
	 * After `after` more API calls pass, the next `count` are answered by the gateway itself,
	 * never reaching the service.
	 */
	answerNext(count: number, reply: GatewayReply, after?: number): void;
	close(): Promise<void>;
}

/**
 * A reverse proxy that serves the sandbox under a path (`http://127.0.0.1:port/stockroom`), as an
 * API gateway does: it strips the path, tells the service where it is (`X-Forwarded-Prefix`, the
 * client's `Host`), answers 404 itself outside its path, and can answer API calls itself (a
 * maintenance page with a secret in it, say).
 */
export async function createGateway(sandbox: Sandbox, prefix = '/stockroom'): Promise<Gateway> {
	const target = new URL(sandbox.url);
	/** The gateway's own answers to the next API calls; `null`: the call passes. */
	const own: Array<GatewayReply | null> = [];

	function reply(res: ServerResponse, { status, contentType, body, headers }: GatewayReply): void {
		res.writeHead(status, {
			...headers,
			'Content-Type': contentType,
			'Content-Length': Buffer.byteLength(body),
		});
		res.end(body);
	}

	function forward(req: IncomingMessage, res: ServerResponse): void {
		const url = req.url ?? '/';
		if (url !== prefix && !url.startsWith(`${prefix}/`)) {
			reply(res, {
				status: 404,
				contentType: 'text/html',
				body: '<html><body><h1>404 Not Found</h1></body></html>',
			});
			return;
		}
		const path = url.slice(prefix.length) || '/';
		const ownReply = path.startsWith('/api/') ? own.shift() : undefined;
		if (ownReply) {
			reply(res, ownReply);
			req.resume();
			return;
		}
		const upstream = request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path,
				headers: { ...req.headers, 'x-forwarded-prefix': prefix },
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	}

	const server = createServer(forward);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}${prefix}`,
		answerNext: (count, answer, after = 0) => {
			for (let i = 0; i < after; i++) own.push(null);
			for (let i = 0; i < count; i++) own.push(answer);
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
