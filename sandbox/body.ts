import type { IncomingMessage } from 'node:http';
import { Answer, badInput, problem } from './problems';

/** Request bodies larger than this are refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Bodies already read, so the request journal can show them. */
const bodies = new WeakMap<IncomingMessage, string>();

/** The body of a request, if a route read it. */
export const bodyOf = (req: IncomingMessage): string | undefined => bodies.get(req);

/**
 * Reads the whole body. An oversized body is still drained, so the client sees the 413 instead
 * of a reset connection.
 */
export async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size <= MAX_BODY_BYTES) chunks.push(chunk);
	}
	if (size > MAX_BODY_BYTES) {
		throw new Answer(
			problem(413, {
				detail: `The request body has ${size} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MB).`,
			}),
		);
	}
	const text = Buffer.concat(chunks).toString('utf8');
	bodies.set(req, text);
	return text;
}

const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/;

/** The media type of a request without parameters, lower case; '' when absent. */
export const mediaType = (req: IncomingMessage): string =>
	(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

/** Reads a JSON body: 415 for another content type, 413 when too large, 400 when malformed. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
	const type = mediaType(req);
	if (!JSON_MEDIA.test(type)) {
		throw new Answer(
			problem(415, {
				detail: `Send the body as application/json (got ${type ? `'${type}'` : 'no type'}).`,
			}),
		);
	}
	const text = await readBody(req);
	if (text.trim() === '') throw badInput('$', 'The request body is empty; send a JSON object.');
	try {
		return JSON.parse(text);
	} catch (error) {
		throw badInput('$', `The request body is not valid JSON: ${(error as Error).message}`);
	}
}
