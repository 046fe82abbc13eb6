import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../sandbox/server';

/** What the gateway answers instead of the service, for the next API calls. */
export interface GatewayReply {
	status: number;
	contentType: string;
	body: string;
}

export interface Gateway {
	/** The base URL a credential uses: the gateway's address and the path it serves under. */
	url: string;
	/** The next `count` API calls are answered by the gateway itself, never reaching the service. */
	answerNext(count: number, reply: GatewayReply): void;
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
	const own: GatewayReply[] = [];

	function reply(res: ServerResponse, { status, contentType, body }: GatewayReply): void {
		res.writeHead(status, {
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
		if (path.startsWith('/api/') && own.length) {
			reply(res, own.shift()!);
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
		answerNext: (count, answer) => {
			for (let i = 0; i < count; i++) own.push(answer);
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
