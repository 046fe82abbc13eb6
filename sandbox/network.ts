import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';

/**
 * How far away the service seems: a delay before every answer (the round trip and the service's
 * own time) and a link of limited bandwidth that every answer's body shares, as a remote service
 * behind one internet connection. Bodies are gzip-compressed when the client asks for it and
 * compression is on, as real services do.
 */
export interface NetworkProfile {
	/** Added before each answer, in milliseconds. */
	latencyMs?: number;
	/** The link's speed in megabits per second; unlimited when absent. */
	bandwidthMbit?: number;
	/** gzip bodies for clients that accept it (default true). */
	compression?: boolean;
}

const gzipAsync = promisify(gzip);
/** Bodies smaller than this go out as they are (compression would not pay). */
const COMPRESS_FROM_BYTES = 1024;
/**
 * Bodies up to this size (a record, an error) are compressed in place: measured, the trip through
 * the thread pool cost a 1 KB body five times its compression (0.25 ms against 0.05), on every
 * write. Pages are compressed off the event loop.
 */
const COMPRESS_IN_PLACE_BYTES = 64 * 1024;
const CHUNK_BYTES = 16 * 1024;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether the request's Accept-Encoding allows gzip (with a non-zero q). */
export function acceptsGzip(req: IncomingMessage): boolean {
	const header = req.headers['accept-encoding'];
	const text = Array.isArray(header) ? header.join(',') : (header ?? '');
	return text.split(',').some((part) => {
		const [coding, ...params] = part.trim().toLowerCase().split(';');
		const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
		return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q) > 0);
	});
}

/** Sends answers the way the profile says; one per sandbox, as its link is shared. */
export class Network {
	private linkFreeAt = 0;
	private readonly bytesPerMs?: number;

	constructor(private readonly profile: NetworkProfile = {}) {
		this.bytesPerMs =
			profile.bandwidthMbit === undefined ? undefined : (profile.bandwidthMbit * 1e6) / 8 / 1000;
	}

	/** The body as it goes on the wire, with the headers that say how. */
	async encode(
		req: IncomingMessage,
		body: Buffer,
	): Promise<{ body: Buffer; headers: Record<string, string> }> {
		if (this.profile.compression === false || body.length < COMPRESS_FROM_BYTES) {
			return { body, headers: {} };
		}
		if (!acceptsGzip(req)) return { body, headers: { Vary: 'Accept-Encoding' } };
		// level 1, nginx's default gzip_comp_level: services compress answers fast, not small
		const options = { level: 1 };
		return {
			body:
				body.length <= COMPRESS_IN_PLACE_BYTES
					? gzipSync(body, options)
					: await gzipAsync(body, options),
			headers: { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' },
		};
	}

	/** Waits the profile's latency (before the answer's headers). */
	async delay(): Promise<void> {
		if (this.profile.latencyMs) await sleep(this.profile.latencyMs);
	}

	/** Writes the body at the link's speed, in turn with every other answer, then ends. */
	async write(res: ServerResponse, body: Buffer | undefined): Promise<void> {
		if (body === undefined || this.bytesPerMs === undefined) {
			res.end(body);
			return;
		}
		for (let offset = 0; offset < body.length && !res.destroyed; offset += CHUNK_BYTES) {
			const chunk = body.subarray(offset, offset + CHUNK_BYTES);
			const now = performance.now();
			const start = Math.max(now, this.linkFreeAt);
			this.linkFreeAt = start + chunk.length / this.bytesPerMs;
			// sleep only when the link is busy for a while: timers are coarse
			if (start - now > 2) await sleep(start - now);
			res.write(chunk);
		}
		const behind = this.linkFreeAt - performance.now();
		if (behind > 1) await sleep(behind);
		res.end();
	}
}
