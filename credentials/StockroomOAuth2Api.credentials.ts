import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** Every scope the nodes use. By default none is requested: the service then grants the app all of its own. */
const SCOPES = ['Assets.Read', 'Assets.Write', 'Contracts.Read', 'Contracts.Write', 'Users.Read'];

export class StockroomOAuth2Api implements ICredentialType {
	name = 'stockroomOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Stockroom OAuth2 API';

	icon = {
		light: 'file:../icons/stockroom.svg',
		dark: 'file:../icons/stockroom.dark.svg',
	} as const;

	documentationUrl = 'https://github.com/stockroom-n8n/n8n-nodes-stockroom#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Address of the service for your region, without a path. Must use https://, except for a local sandbox (localhost, 127.0.0.1, [::1]). Requests go to it directly: a redirect is reported, not followed.',
		},
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'clientCredentials',
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			// Only https, or plain http on a loopback host (the sandbox). n8n shows an expression's error
			// message only when the error is named ExpressionError.
			default:
				'={{ /^(https:\\/\\/|http:\\/\\/(localhost|127\\.0\\.0\\.1|\\[::1\\])(:\\d+)?(\\/|$))/i.test($self.baseUrl.trim()) ? $self.baseUrl.trim().replace(/\\/+$/, "") + "/connect/token" : (() => { const e = new Error("Base URL must start with https:// (plain http:// only for localhost, 127.0.0.1 or [::1]), got \\"" + $self.baseUrl + "\\""); e.name = "ExpressionError"; throw e; })() }}',
		},
		{
			displayName: 'Scopes',
			name: 'scopes',
			type: 'multiOptions',
			options: SCOPES.map((scope) => ({ name: scope, value: scope })),
			// a scope the client app lacks fails every token request, so the default works for any app
			default: [],
			description:
				'Scopes to request. With none selected (the default), no scope is sent and the service grants every scope the client app has; select some to narrow what the token may do.',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: '={{ ($self.scopes || []).join(" ") }}',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'header',
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
	];

	/**
	 * n8n first obtains a token with the selected scopes (proving the client, its secret and that
	 * the app has those scopes), then sends this request. It asks the token endpoint once more, a
	 * call every client app may make whatever scopes it was granted, so an app granted only, say,
	 * Assets.Read passes; a read of assets or users would need a scope the app may not have.
	 */
	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			baseURL: '={{ $credentials.baseUrl.trim().replace(/\\/+$/, "") }}',
			url: '/connect/token',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: '={{ "grant_type=client_credentials&client_id=" + encodeURIComponent($credentials.clientId) + "&client_secret=" + encodeURIComponent($credentials.clientSecret) + (($credentials.scopes || []).length ? "&scope=" + encodeURIComponent($credentials.scopes.join(" ")) : "") }}',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 400,
					message:
						'The token endpoint refused the client or a selected scope: check Client ID, Client Secret and Scopes (select none to get every scope the client app has)',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'The service was not found at this Base URL: check its path',
				},
			},
		],
	};
}
