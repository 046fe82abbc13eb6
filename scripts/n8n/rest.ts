import { HarnessError } from './errors';
import { CREDENTIAL_TYPE, N8N_BEFORE_1_100 } from './paths';

export interface OwnerLogin {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** The account `npm start` and tests create (n8n wants 8+ characters, a digit and a capital). */
export const DEFAULT_OWNER: OwnerLogin = {
	email: 'owner@example.com',
	password: 'Stockroom-sandbox-1',
	firstName: 'Stockroom',
	lastName: 'Owner',
};

export interface RestResponse {
	status: number;
	body: unknown;
}

/** What n8n's "Test credential" answers. */
export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

export class RestError extends HarnessError {
	constructor(
		readonly method: string,
		readonly path: string,
		readonly status: number,
		readonly body: unknown,
	) {
		super(`${method} ${path} answered ${status}: ${JSON.stringify(body)}`);
	}
}

/** n8n's internal REST API (`/rest/…`) with the session cookie of a logged-in user. */
export class N8nRest {
	private cookie?: string;

	// n8n binds the auth cookie to this header; any constant value works for one client
	private readonly browserId = 'stockroom-e2e-harness';

	constructor(readonly baseUrl: string) {}

	get authCookie(): string | undefined {
		return this.cookie;
	}

	async raw(method: string, path: string, body?: unknown): Promise<RestResponse> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: {
				'browser-id': this.browserId,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const auth = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await response.text();
		let parsed: unknown = text;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			// an HTML error page stays text
		}
		return { status: response.status, body: parsed };
	}

	/** A call that must succeed; returns the `data` of n8n's `{ data }` envelope. */
	async request<T>(method: string, path: string, body?: unknown): Promise<T> {
		const { status, body: answer } = await this.raw(method, path, body);
		if (status < 200 || status > 299) throw new RestError(method, path, status, answer);
		return (answer as { data: T }).data;
	}

	/** Creates the owner on a fresh instance, or logs in when one exists. */
	async ensureOwner(owner: OwnerLogin = DEFAULT_OWNER): Promise<void> {
		const settings = await this.request<{ userManagement: { showSetupOnFirstLoad?: boolean } }>(
			'GET',
			'/rest/settings',
		);
		if (settings.userManagement.showSetupOnFirstLoad) {
			await this.request('POST', '/rest/owner/setup', owner);
		}
		await this.login(owner);
	}

	async login({ email, password }: Pick<OwnerLogin, 'email' | 'password'>): Promise<void> {
		await this.request('POST', '/rest/login', { emailOrLdapLoginId: email, password });
	}

	/** Saves a credential as the editor does; returns its id. */
	async createCredential(credential: {
		name?: string;
		type?: string;
		data: Record<string, unknown>;
	}): Promise<string> {
		const { name = 'Stockroom', type = CREDENTIAL_TYPE, data } = credential;
		return (await this.request<{ id: string }>('POST', '/rest/credentials', { name, type, data }))
			.id;
	}

	/**
	 * Runs a saved workflow from the editor up to a node; on a trigger node this is its "Fetch Test
	 * Event". Returns the id of the execution, which finishes in the background.
	 */
	async runManually(workflowId: string, nodeName: string): Promise<string> {
		const { executionId } = await this.request<{ executionId: string }>(
			'POST',
			`/rest/workflows/${workflowId}/run`,
			{
				workflowData: await this.workflow(workflowId),
				// n8n before 1.100 names the destination node by its name alone, and starts a workflow
				// with several triggers from the one it is told to
				...(N8N_BEFORE_1_100
					? { destinationNode: nodeName, triggerToStartFrom: { name: nodeName } }
					: { destinationNode: { nodeName, mode: 'inclusive' } }),
			},
		);
		return executionId;
	}

	/**
	 * "Execute workflow" from a trigger node, as the editor does; returns the id of the execution,
	 * which finishes in the background. (n8n 1.x reads the workflow from the request; 2.x ignores it.)
	 */
	async runWorkflow(workflowId: string, triggerName: string): Promise<string> {
		const { executionId } = await this.request<{ executionId: string }>(
			'POST',
			`/rest/workflows/${workflowId}/run`,
			{ workflowData: await this.workflow(workflowId), triggerToStartFrom: { name: triggerName } },
		);
		return executionId;
	}

	/** A saved workflow as the editor has it. */
	async workflow(workflowId: string): Promise<Record<string, unknown>> {
		return await this.request<Record<string, unknown>>('GET', `/rest/workflows/${workflowId}`);
	}

	/**
	 * "Test credential" as the editor calls it. `id` '' tests data that was never saved; with the
	 * id of a saved credential, n8n merges the given data into the stored one.
	 */
	async testCredential(credential: {
		id?: string;
		name?: string;
		type?: string;
		data: Record<string, unknown>;
	}): Promise<CredentialTestResult> {
		const { id = '', name = 'Stockroom', type = CREDENTIAL_TYPE, data } = credential;
		return await this.request<CredentialTestResult>('POST', '/rest/credentials/test', {
			credentials: { id, name, type, data },
		});
	}
}
