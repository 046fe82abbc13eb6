import type { IDataObject } from 'n8n-workflow';

/** A response body as n8n's request helper hands it over with `encoding: 'stream'`. */
export interface BodyStream {
	on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
	on(event: 'end', listener: () => void): unknown;
	on(event: 'error', listener: (error: Error) => void): unknown;
	destroy(): unknown;
}

export const isBodyStream = (value: unknown): value is BodyStream =>
	typeof value === 'object' &&
	value !== null &&
	typeof (value as BodyStream).on === 'function' &&
	typeof (value as BodyStream).destroy === 'function';

/** The whole body as text (UTF-8, decoded across chunk boundaries). */
export async function readText(stream: BodyStream): Promise<string> {
	const decoder = new TextDecoder();
	const parts: string[] = [];
	return await new Promise<string>((resolve, reject) => {
		stream.on('data', (chunk) => parts.push(decoder.decode(chunk, { stream: true })));
		stream.on('end', () => {
			parts.push(decoder.decode());
			resolve(parts.join(''));
		});
		stream.on('error', reject);
	});
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
