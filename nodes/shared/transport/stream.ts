import type { IDataObject } from 'n8n-workflow';

/** A response body as n8n's request helper hands it over with `encoding: 'stream'`. */
export interface BodyStream {
	on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
	on(event: 'end' | 'close', listener: () => void): unknown;
	on(event: 'error', listener: (error: Error) => void): unknown;
	destroy(): unknown;
	/** Node's stream state: set when the stream failed or was closed, perhaps before it is read. */
	readonly errored?: unknown;
	readonly destroyed?: boolean;
	readonly readableEnded?: boolean;
}

export const isBodyStream = (value: unknown): value is BodyStream =>
	typeof value === 'object' &&
	value !== null &&
	typeof (value as BodyStream).on === 'function' &&
	typeof (value as BodyStream).destroy === 'function';

/** Why a body that will never end did not: it failed or closed early (the connection dropped). */
function cutShort(stream: BodyStream): Error {
	const cause = stream.errored instanceof Error ? stream.errored : undefined;
	return Object.assign(new Error(cause?.message ?? 'aborted'), { code: 'ECONNRESET', cause });
}

/**
 * The memory a list walk reads its pages into, one page at a time: a page's bytes are needed
 * only until the page is parsed, and the next page is read only after that. One buffer for the
 * whole walk instead of one per page: each new buffer of a page's size (1.25 MB at 1,000
 * assets) is memory outside the JavaScript heap, and V8 answers a run of them with full
 * collections, which cost a 100,000-asset list about a second of CPU (issue 26).
 */
export class PageBuffer {
	private bytes = new Uint8Array(0);

	/** Room for `length` bytes, valid until the next call; grown with headroom for longer pages. */
	take(length: number): Uint8Array {
		if (this.bytes.length < length) this.bytes = new Uint8Array(Math.ceil(length * 1.25));
		return this.bytes.subarray(0, length);
	}
}

/**
 * The whole body, as bytes (outside the JavaScript heap): in `into` when given (valid until its
 * next use), else in memory of its own. A body whose connection dropped fails, even when that
 * happened before it was read (n8n 1.x hands over such a stream already closed: waiting for its
 * end would wait for ever).
 */
export async function readBytes(stream: BodyStream, into?: PageBuffer): Promise<Uint8Array> {
	const chunks: Uint8Array[] = [];
	return await new Promise<Uint8Array>((resolve, reject) => {
		if (stream.errored || (stream.destroyed && !stream.readableEnded)) {
			reject(cutShort(stream));
			return;
		}
		let ended = false;
		stream.on('data', (chunk) => chunks.push(chunk));
		stream.on('end', () => {
			ended = true;
			const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
			const bytes = into ? into.take(length) : new Uint8Array(length);
			let at = 0;
			for (const chunk of chunks) {
				bytes.set(chunk, at);
				at += chunk.length;
			}
			chunks.length = 0;
			resolve(bytes);
		});
		stream.on('error', reject);
		stream.on('close', () => {
			if (!ended) reject(cutShort(stream));
		});
	});
}

/** Pieces a text is decoded in: Node makes a longer one an external string (see decodeText). */
const PIECE_BYTES = 1 << 16;

/**
 * Bytes as UTF-8 text, decoded in pieces and joined. Decoded in one piece, a text of over a
 * megabyte would be an external string, whose memory pressure makes V8 run full collections
 * often (measured on a list: its CPU time +50%).
 */
export function decodeText(bytes: Uint8Array): string {
	const decoder = new TextDecoder();
	const parts: string[] = [];
	for (let at = 0; at < bytes.length; at += PIECE_BYTES) {
		parts.push(decoder.decode(bytes.subarray(at, at + PIECE_BYTES), { stream: true }));
	}
	parts.push(decoder.decode());
	return parts.join('');
}

/** The whole body as text (UTF-8, decoded once the body is whole: see readBytes). */
export async function readText(stream: BodyStream): Promise<string> {
	return decodeText(await readBytes(stream));
}

/** The body as JSON; an empty body is `{}`. */
export async function readJson(stream: BodyStream): Promise<IDataObject> {
	const text = await readText(stream);
	return text.trim() === '' ? {} : (JSON.parse(text) as IDataObject);
}

/** The `rel="next"` target of a `Link` header, when there is one. */
export function nextLinkOf(headers: IDataObject): string | undefined {
	const header = headers.link;
	if (typeof header !== 'string') return undefined;
	for (const part of header.split(/,(?=\s*<)/)) {
		const match = /^\s*<([^>]*)>(.*)$/.exec(part);
		if (match && /;\s*rel="?next"?(\s*;|\s*$)/i.test(match[2])) return match[1];
	}
	return undefined;
}
