import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** Every scope the nodes use; the credential requests all of them unless told otherwise. */
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
				'Address of the service for your region, without a path. Must use https://, except for a local sandbox (localhost, 127.0.0.1, [::1]).',
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
			default: SCOPES,
			description:
				'Scopes to request. With none selected, no scope is sent and the service grants every scope the client app has.',
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

	// One cheap authenticated call: obtaining a token proves the client and scopes, the call proves the URL.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.trim().replace(/\\/+$/, "") }}',
			url: '/api/scim/v2/Users',
			qs: { count: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'A token was issued, but it lacks the Users.Read scope the test call needs: grant it to the client app and select it in Scopes',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'A token was issued, but the service was not found at this Base URL: check its path',
				},
			},
		],
	};
}
