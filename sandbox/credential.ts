import type { Sandbox } from './server';

/** The Stockroom credential's fields, as a user fills them in (a type: usable as plain data). */
export type CredentialInput = {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	scopes?: string[];
};

/** The credential for a sandbox's own client (registered with every scope). */
export const sandboxCredentialInput = (
	sandbox: Pick<Sandbox, 'url' | 'client'>,
): CredentialInput => ({
	baseUrl: sandbox.url,
	clientId: sandbox.client.id,
	clientSecret: sandbox.client.secret,
});
