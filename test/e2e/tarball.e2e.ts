import { createN8nHome, type N8nHome, type N8nServer, PACKAGE_NAME } from '../../scripts/n8n';

/** What n8n serves the editor: every node type and credential type it loaded. */
interface TypeDescription {
	name: string;
	displayName: string;
}

describe('real n8n with only the packed tarball installed', () => {
	let home: N8nHome;
	let server: N8nServer;

	beforeAll(async () => {
		// the harness installs nothing but what `npm pack` put in the tarball
		home = await createN8nHome();
		server = await home.start();
	}, 180_000);

	afterAll(async () => {
		await server?.stop();
		await home?.dispose();
	});

	test('loads exactly the four nodes (and their AI tool variants) and the credential', async () => {
		const nodes = (await server.rest.raw('GET', '/types/nodes.json')).body as TypeDescription[];
		const ours = [...new Set(nodes.map((node) => node.name))]
			.filter((name) => name.startsWith(`${PACKAGE_NAME}.`))
			.sort();
		expect(ours).toEqual(
			[
				'stockroomAsset',
				'stockroomAssetTool',
				'stockroomContract',
				'stockroomContractTool',
				'stockroomTrigger',
				'stockroomUser',
				'stockroomUserTool',
			].map((name) => `${PACKAGE_NAME}.${name}`),
		);
		const credentials = (await server.rest.raw('GET', '/types/credentials.json'))
			.body as TypeDescription[];
		expect(
			credentials
				.filter((credential) => /stockroom/i.test(credential.name))
				.map(({ name }) => name),
		).toEqual(['stockroomOAuth2Api']);
	});
});
