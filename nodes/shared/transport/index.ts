import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';
import { resolveCall } from './baseUrl';
import type { RequestContext } from './credential';
import { send, type RequestOptions } from './send';

export { getBaseUrl, normalizeBaseUrl, onBaseOrigin } from './baseUrl';
export { DEFAULT_RETRY, EDITOR_RETRY, type RetryPolicy } from './retry';
export type { AnswerShape } from './answers';
export { CREDENTIAL_TYPE, type RequestContext } from './credential';
export { isNotFound, type RequestOptions } from './send';
export {
	collect,
	headerDate,
	MAX_PAGE_SIZE,
	paginate,
	paginateScim,
	type ListOptions,
	type ListPage,
} from './paging';

/**
 * Makes one call to the service and gives its JSON body, which is the shape `options.answer`
 * names (anything else fails); retries within the retry policy (see `send`).
 */
export async function apiRequest(
	this: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<IDataObject> {
	return (await apiExchange.call(this, method, pathOrUrl, options)).body;
}

/** A response: its JSON body and its headers (lower-case names). */
export interface ApiResponse {
	body: IDataObject;
	headers: IDataObject;
}

/** `apiRequest`, also giving the response's headers (the service's clock is in `date`). */
export async function apiExchange(
	this: RequestContext,
	method: IHttpRequestMethods,
	pathOrUrl: string,
	options: RequestOptions,
): Promise<ApiResponse> {
	const call = await resolveCall(this, method, pathOrUrl, options);
	const { body, headers } = await send(this, call);
	return { body: body as IDataObject, headers };
}
