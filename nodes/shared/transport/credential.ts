import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { readStreamBodies } from './failure';

export const CREDENTIAL_TYPE = 'stockroomOAuth2Api';

export type RequestContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** An answer as n8n's request helpers give it with `returnFullResponse`. */
export interface HelperResponse {
	body?: unknown;
	headers?: IDataObject;
	statusCode?: number;
}

/**
 * The credential as one execution context (a node's run, a poll, a list in the editor) uses it.
 *
 * n8n's authenticated helper reads the credential from its database, decrypts it and resolves its
 * expressions on every request: about 4 ms of n8n's CPU each, most of what a write costs. Here the
 * credential is read once per context, and requests carry the token n8n stored in it through n8n's
 * plain request helper, which applies the same proxy, SSRF and TLS rules. n8n acts on the token
 * as it always does: with none stored yet, the request takes n8n's authenticated path (n8n fetches
 * and stores one); when the service refuses the token sent (401), n8n's `refreshOAuth2Token`
 * renews it, stores it and shares it (across the workers of a queue-mode instance too; n8n 2.x
 * holds a lock per credential), unless the credential already holds a newer one, and the request is
 * sent once more, as n8n's own path does. One request of a context renews at a time; the others
 * wait for it and send the renewed token.
 *
 * Where the stored token cannot be sent as a bearer token (a token type other than Bearer), or the
 * credential does not read, every request takes n8n's authenticated path. (The OAuth2 options that
 * would change how n8n signs or sends, Ignore SSL Issues, Token Expired Status Code and encrypted
 * JWE tokens, are not inherited by credentials that extend n8n's OAuth2 API: ours has none of them.)
 */
class CredentialAccess {
	/** The credential as first read: its Base URL (which a run does not change). */
	readonly first: Promise<ICredentialDataDecryptedObject>;
	/** The token to send, from the latest read; undefined: none stored. */
	private token: Promise<string | undefined>;
	/** A renewal under way: the token that replaces the refused one. */
	private renewal: Promise<string | undefined> | undefined;
	/** Whether the stored token may be sent as stored (decided by each read). */
	private direct = true;
	/** The token the latest read or renewal gave. */
	private latest: string | undefined;

	constructor(private readonly context: RequestContext) {
		this.first = context.getCredentials(CREDENTIAL_TYPE);
		this.token = this.tokenOf(this.first);
	}

	async request(via: RequestContext, request: IHttpRequestOptions): Promise<HelperResponse> {
		let token = await this.token;
		if (token === undefined && this.direct && this.renewal) token = await this.settled();
		if (!this.direct) return await this.throughN8n(via, request);
		if (token === undefined) {
			// the first request of a credential never used: n8n fetches and stores a token
			const fetching = this.throughN8n(via, request);
			this.track(fetching.then(this.reread, this.reread));
			return await fetching;
		}
		const first = await this.withToken(via, request, token, false);
		if (first) return first;
		const renewed = await this.renew(token);
		if (renewed === undefined) return await this.throughN8n(via, request);
		return (await this.withToken(via, request, renewed, true))!;
	}

	/**
	 * Sends with a token; a 401 is given back as undefined unless it is the last word (it is then
	 * thrown, as n8n's path throws a 401 that outlasts a renewal); any other failure is thrown.
	 */
	private async withToken(
		via: RequestContext,
		request: IHttpRequestOptions,
		token: string,
		last: boolean,
	): Promise<HelperResponse | undefined> {
		const signed = {
			...request,
			headers: { ...request.headers, Authorization: `Bearer ${token}` },
		};
		const sent = via.helpers.httpRequest(signed) as Promise<HelperResponse>;
		// a failure other than a 401 reaches the caller as it is (it reads every kind)
		if (last) return await sent;
		return await sent.catch(async (error: unknown) => {
			if ((error as { response?: { status?: unknown } }).response?.status !== 401) throw error;
			// a 401 of a streamed call holds its connection until its body is read
			await readStreamBodies(error);
			return undefined;
		});
	}

	/** The token that replaces a refused one: one renewal at a time, through n8n. */
	private async renew(refused: string): Promise<string | undefined> {
		// a request sent before the last renewal, refused after it
		if (!this.renewal && this.latest !== undefined && this.latest !== refused) return this.latest;
		return await (this.renewal ?? this.track(this.renewedToken(refused)));
	}

	/** Makes a renewal the one under way until it ends. */
	private track(renewal: Promise<string | undefined>): Promise<string | undefined> {
		this.renewal = renewal;
		const ended = () => {
			if (this.renewal === renewal) this.renewal = undefined;
		};
		renewal.then(ended, ended);
		return renewal;
	}

	private async renewedToken(refused: string): Promise<string | undefined> {
		// another run, or another worker, may have stored a new token already
		const stored = await this.reread();
		if (!this.direct || (stored !== undefined && stored !== refused)) return stored;
		const renewed = (await this.context.helpers.refreshOAuth2Token.call(
			this.context,
			CREDENTIAL_TYPE,
		)) as IDataObject | undefined;
		const token = renewed?.access_token;
		if (typeof token === 'string' && token !== '') {
			this.latest = token;
			this.token = Promise.resolve(token);
			return token;
		}
		return await this.reread();
	}

	/** Reads the credential again; its token is the one to send from now on. */
	private readonly reread = async (): Promise<string | undefined> => {
		this.token = this.tokenOf(this.context.getCredentials(CREDENTIAL_TYPE));
		return await this.token;
	};

	/** The token once the renewal under way has ended (whatever its outcome). */
	private async settled(): Promise<string | undefined> {
		await this.renewal?.catch(() => undefined);
		return await this.token;
	}

	/** n8n's authenticated path, which reads the credential and acts on its token itself. */
	private async throughN8n(
		via: RequestContext,
		request: IHttpRequestOptions,
	): Promise<HelperResponse> {
		return (await via.helpers.httpRequestWithAuthentication.call(
			via,
			CREDENTIAL_TYPE,
			request,
		)) as HelperResponse;
	}

	private async tokenOf(
		read: Promise<ICredentialDataDecryptedObject>,
	): Promise<string | undefined> {
		const credential = await read.catch(() => undefined);
		const stored = credential?.oauthTokenData as IDataObject | undefined;
		const type = stored?.token_type ?? stored?.tokenType;
		this.direct =
			credential !== undefined && (type === undefined || /^bearer$/i.test(String(type)));
		const token = stored?.access_token;
		this.latest = this.direct && typeof token === 'string' && token !== '' ? token : undefined;
		return this.latest;
	}
}

const accesses = new WeakMap<object, CredentialAccess>();

function accessOf(context: RequestContext): CredentialAccess {
	let access = accesses.get(context);
	if (!access) {
		access = new CredentialAccess(context);
		accesses.set(context, access);
	}
	return access;
}

/** The credential as this context first read it. */
export async function readCredential(
	context: RequestContext,
): Promise<ICredentialDataDecryptedObject> {
	return await accessOf(context).first;
}

/**
 * Sends a request with the credential's token (see CredentialAccess). `via` is the context to send
 * through (it may hand out another abort signal); the credential is `context`'s.
 */
export async function authorizedRequest(
	context: RequestContext,
	via: RequestContext,
	request: IHttpRequestOptions,
): Promise<HelperResponse> {
	return await accessOf(context).request(via, request);
}
