import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it went through, with the headers the journal of a server may not keep. */
export interface RecordedCall {
	method: string;
	path: string;
	query: Record<string, string>;
	accept?: string;
	status?: number;
}

/** Notes a request as it arrives (its status once the answer is sent) into `calls`. */
export function recordCall(req: IncomingMessage, res: ServerResponse, calls: RecordedCall[]): void {
	const url = new URL(req.url ?? '/', 'http://127.0.0.1');
	const call: RecordedCall = {
		method: req.method ?? 'GET',
		path: url.pathname,
		query: Object.fromEntries(url.searchParams),
		accept: req.headers.accept,
	};
	calls.push(call);
	res.on('finish', () => (call.status = res.statusCode));
}

export interface Recorder {
	/** The address to use instead of the upstream's (same paths). */
	url: string;
	calls(): RecordedCall[];
	clear(): void;
	/** Answers the next request to a path starting with `prefix` itself (the next after `skip`). */
	answerNext(prefix: string, reply: { status: number; body: unknown }, skip?: number): void;
	close(): Promise<void>;
}

/**
 * A pass-through proxy on 127.0.0.1 that records each request (method, path, query, Accept) and
 * its status, and can answer chosen requests itself (a server that pages wrongly, say).
 */
export async function createRecorder(upstream: string): Promise<Recorder> {
	const target = new URL(upstream);
	let calls: RecordedCall[] = [];
	const own: Array<{ prefix: string; skip: number; reply: { status: number; body: unknown } }> = [];
	const server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		recordCall(req, res, calls);
		const planned = own.findIndex((entry) => url.pathname.startsWith(entry.prefix));
		if (planned >= 0 && own[planned].skip-- <= 0) {
			const [{ reply }] = own.splice(planned, 1);
			const body = JSON.stringify(reply.body);
			res.writeHead(reply.status, {
				'Content-Type': 'application/scim+json',
				'Content-Length': Buffer.byteLength(body),
			});
			res.end(body);
			req.resume();
			return;
		}
		const upstreamRequest = request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url,
				headers: { ...req.headers, host: target.host },
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstreamRequest.on('error', () => res.destroy());
		req.pipe(upstreamRequest);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		calls: () => calls.map((call) => ({ ...call })),
		clear: () => {
			calls = [];
			own.length = 0;
		},
		answerNext: (prefix, reply, skip = 0) => own.push({ prefix, skip, reply }),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
