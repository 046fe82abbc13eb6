import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** Every scope the nodes use; the credential requests all of them unless told otherwise. */
const SCOPES = ['Assets.Read', 'Assets.Write', 'Contracts.Read', 'Contracts.Write', 'Users.Read'];

export class StockroomOAuth2Api implements ICredentialType {
	name = 'stockroomOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Stockroom OAuth2 API';

	icon = { light: 'file:../icons/stockroom.svg', dark: 'file:../icons/stockroom.dark.svg' } as const;

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
			default: '={{ $self.baseUrl.trim().replace(/\\/+$/, "") + "/connect/token" }}',
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
	};
}
