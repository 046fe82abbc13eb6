import { createN8nHome, startFakeService, type FakeService, type N8nHome } from './harness';

/** Manual Trigger → n8n's own HTTP Request node authenticated with our credential type. */
function listUsersWorkflow(baseUrl: string, credentialId: string) {
	return {
		name: 'List users with the Stockroom credential',
		nodes: [
			{
				id: 'b7d3c0de-0000-4000-8000-000000000001',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'b7d3c0de-0000-4000-8000-000000000002',
				name: 'List users',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [220, 0],
				parameters: {
					url: `${baseUrl}/api/scim/v2/Users`,
					authentication: 'predefinedCredentialType',
					nodeCredentialType: 'stockroomOAuth2Api',
					options: {},
				},
				credentials: { stockroomOAuth2Api: { id: credentialId, name: 'Stockroom' } },
			},
		],
		connections: { Start: { main: [[{ node: 'List users', type: 'main', index: 0 }]] } },
	};
}

describe('the credential in real n8n', () => {
	let service: FakeService;
	let home: N8nHome;
	let workflowId: string;

	beforeAll(async () => {
		service = await startFakeService({ users: 3 });
		home = await createN8nHome();
		const credentialId = await home.importCredential({
			baseUrl: `${service.baseUrl}/`,
			clientId: service.clientId,
			clientSecret: service.clientSecret,
		});
		workflowId = await home.importWorkflow(listUsersWorkflow(service.baseUrl, credentialId));
	});

	afterAll(async () => {
		home?.dispose();
		await service?.close();
	});

	it('gets a token through n8n’s OAuth2 code (HTTP Basic, all scopes), then calls the API', async () => {
		const run = await home.executeWorkflow(workflowId);

		expect(run.error).toBeUndefined();
		expect(run.status).toBe('success');
		const [page] = run.outputs['List users'];
		expect(run.outputs['List users']).toHaveLength(1);
		expect(page).toMatchObject({ totalResults: 3, startIndex: 1, itemsPerPage: 3 });
		expect((page.Resources as Array<{ userName: string }>).map((user) => user.userName)).toEqual([
			'user1@example.com',
			'user2@example.com',
			'user3@example.com',
		]);

		const tokenCalls = service.requests.filter((request) => request.path === '/connect/token');
		expect(tokenCalls).toHaveLength(1);
		const basic = Buffer.from(`${service.clientId}:${service.clientSecret}`).toString('base64');
		expect(tokenCalls[0].headers.authorization).toBe(`Basic ${basic}`);
		const form = new URLSearchParams(tokenCalls[0].body);
		expect(form.get('grant_type')).toBe('client_credentials');
		expect(form.get('scope')).toBe(
			'Assets.Read Assets.Write Contracts.Read Contracts.Write Users.Read',
		);
		expect(form.has('client_secret')).toBe(false);

		const apiCalls = service.requests.filter((request) => request.path === '/api/scim/v2/Users');
		expect(apiCalls).toHaveLength(1);
		expect(apiCalls[0].headers.authorization).toMatch(/^Bearer [\w-]{43}$/);
	});

	it('stores the token in the credential and reuses it on the next run', async () => {
		const before = service.requests.length;

		const run = await home.executeWorkflow(workflowId);

		expect(run.status).toBe('success');
		const paths = service.requests.slice(before).map((request) => request.path);
		expect(paths).toEqual(['/api/scim/v2/Users']);
	});
});
