import { NodeOperationError, type IHttpRequestMethods } from 'n8n-workflow';
import { readCredential, type RequestContext } from './credential';
import type { Call, RequestOptions } from './send';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The credential's base URL without trailing slashes; https unless the host is loopback. */
export function normalizeBaseUrl(value: unknown): string {
	const text = typeof value === 'string' ? value.trim().replace(/\/+$/, '') : '';
	const match = /^(https?):\/\/([^/?#]+)(\/[^?#]*)?$/i.exec(text);
	if (!match) {
		throw new Error(`Base URL must be an address like https://api.example.com, got "${text}"`);
	}
	const host = match[2].replace(/:\d+$/, '').toLowerCase();
	if (match[1].toLowerCase() !== 'https' && !LOOPBACK_HOSTS.includes(host)) {
		throw new Error(
			`Base URL must use https:// (plain http is only allowed for localhost, 127.0.0.1 and [::1]), got "${text}"`,
		);
	}
	return text;
}

/** The credential's base URL, read once per execution context. */
export async function getBaseUrl(this: RequestContext): Promise<string> {
	const configured = (await readCredential(this)).baseUrl;
	try {
		return normalizeBaseUrl(configured);
	} catch (error) {
		throw new NodeOperationError(
			this.getNode(),
			`Credential problem: ${(error as Error).message}`,
			{
				description: 'Open the Stockroom credential and correct its Base URL.',
			},
		);
	}
}

/**
 * `next` links are absolute and carry the original query; they are followed as given, but on the
 * credential's own origin so the bearer token never goes to a host the user did not configure.
 */
export function onBaseOrigin(link: string, baseUrl: string): string {
	const origin = /^https?:\/\/[^/?#]+/i;
	const linkOrigin = origin.exec(link)?.[0];
	const baseOrigin = origin.exec(baseUrl)?.[0];
	return linkOrigin && baseOrigin && linkOrigin !== baseOrigin
		? baseOrigin + link.slice(linkOrigin.length)
		: link;
}

/** A call to a path under the base URL, or to an absolute link (kept on the base URL's origin). */
export async function resolveCall(
	context: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<Call> {
	const baseUrl = await getBaseUrl.call(context);
	const url = /^https?:\/\//i.test(pathOrUrl)
		? onBaseOrigin(pathOrUrl, baseUrl)
		: baseUrl + pathOrUrl;
	return { method, url, baseUrl, options };
}
